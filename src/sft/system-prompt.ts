import { planPrompt, renderAppApiList } from '../agents/index.js';
import { type Api, type Catalog, indexCatalog, renderCatalogText } from '../catalog/index.js';
import { NotFoundError } from '../shared/index.js';

/**
 * The prompt a sample is trained with:
 * - `appbench`: exactly the flat/hierarchical agents' plan prompt (`planPrompt`) over the
 *   official App+API listing (`renderAppApiList`, Python dict repr) of the listed APIs; replies
 *   name calls `App_api` as that prompt asks;
 * - `compact`: `SFT_PLANNER_RULES` over `renderCatalogText`'s listing; replies name calls `api`.
 */
export const SFT_PROMPT_STYLES = ['appbench', 'compact'] as const;
export type SftPromptStyle = (typeof SFT_PROMPT_STYLES)[number];

/** Rules above the API listing: the reply format the planning agents ask for (AppBench line format). */
export const SFT_PLANNER_RULES = [
  'You plan the API calls that fulfil a user request. Use only the apps and APIs listed below.',
  'Reply with one call per line, in dependency order, each line written as',
  "App: [out1, out2 = api(#arg1='literal', #arg2=out_of_an_earlier_call)]",
  "Quote values the user gave; write an earlier call's returned argument unquoted to depend on it.",
  'Omit optional arguments the user did not specify. Reply with the calls only.',
].join('\n');

export interface SftSystemPromptOptions {
  /** Date the model plans from (AppBench: 2019-03-01); omitted when undefined. */
  currentDate?: string;
  /** Text before the listing (default SFT_PLANNER_RULES). */
  rules?: string;
}

/**
 * The API listing of a prompt, rendered with `renderCatalogText` over a sub-catalog holding only
 * `apiIds`. `renderCatalogText` groups APIs under their app, so the listing follows `apiIds`
 * grouped by app: apps in order of their first API in `apiIds`, each app's APIs in `apiIds` order.
 */
function renderApiListing(catalog: Catalog, apiIds: readonly string[]): string {
  const { sub, apps } = subCatalog(catalog, apiIds);
  return renderCatalogText(sub, { apps });
}

/**
 * The catalog restricted to `apiIds`: apps in order of their first API in `apiIds`, APIs in
 * `apiIds` order (both renderers group APIs under their app in this order).
 */
function subCatalog(catalog: Catalog, apiIds: readonly string[]): { sub: Catalog; apps: string[] } {
  const index = indexCatalog(catalog);
  const apis: Api[] = apiIds.map((id) => {
    const api = index.apiById(id);
    if (!api) throw new NotFoundError('API', id);
    return api;
  });
  const apps = [...new Set(apis.map((a) => a.app))];
  const sub: Catalog = {
    name: catalog.name,
    apps: apps.map((id) => index.app(id)!),
    apis,
  };
  return { sub, apps };
}

/** The agents' plan prompt (`planPrompt`) over the official listing of `apiIds`' apps and APIs. */
export function renderAppBenchSystemPrompt(
  catalog: Catalog,
  apiIds: readonly string[],
  currentDate: string,
): string {
  return planPrompt(renderAppApiList(subCatalog(catalog, apiIds).sub), currentDate);
}

/** System prompt of one SFT sample: rules, current date, then the API listing. */
export function renderSftSystemPrompt(
  catalog: Catalog,
  apiIds: readonly string[],
  opts: SftSystemPromptOptions = {},
): string {
  const date = opts.currentDate ? `\nCurrent date: ${opts.currentDate}.` : '';
  return `${opts.rules ?? SFT_PLANNER_RULES}${date}\n\nApps and APIs:\n\n${renderApiListing(catalog, apiIds)}`;
}
