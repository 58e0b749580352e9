import { planPrompt, renderAppApiList } from '../agents/index.js';
import { type Api, type Catalog, indexCatalog, renderCatalogText } from '../catalog/index.js';
import { type Plan, printPlanText } from '../plan/index.js';
import { printAppPrefixedPlan } from '../retrieval/index.js';
import { ApiaryError, NotFoundError } from '../shared/index.js';

/**
 * How a sample's system prompt and reply are written. The core has two (`agentSftStyle`,
 * `compactSftStyle`); a benchmark plugin may add its own (e.g. one with its default date).
 */
export interface SftPromptStyle {
  /** What the build's stats record as its `style`. */
  readonly name: string;
  /** The date prompts plan from when the build's options give none. */
  readonly currentDate?: string;
  /** The system prompt over the APIs `apiIds` (apps in order of their first API). */
  system(catalog: Catalog, apiIds: readonly string[], opts: SftSystemPromptOptions): string;
  /** The reply text of a gold plan. */
  printReply(plan: Plan): string;
}

/** Rules above the API listing: the reply format the planning agents ask for (one call per line). */
export const SFT_PLANNER_RULES = [
  'You plan the API calls that fulfil a user request. Use only the apps and APIs listed below.',
  'Reply with one call per line, in dependency order, each line written as',
  "App: [out1, out2 = api(#arg1='literal', #arg2=out_of_an_earlier_call)]",
  "Quote values the user gave; write an earlier call's returned argument unquoted to depend on it.",
  'Omit optional arguments the user did not specify. Reply with the calls only.',
].join('\n');

export interface SftSystemPromptOptions {
  /** Date the model plans from; omitted when undefined. */
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

/**
 * Exactly the flat/hierarchical planning agents' prompt (`planPrompt`) over the App+API listing
 * (`renderAppApiList`, Python dict repr) of the listed APIs; replies name calls `App_api` as that
 * prompt asks. The prompt states a current date, so one is required.
 */
export const agentSftStyle: SftPromptStyle = {
  name: 'agent',
  system(catalog, apiIds, opts) {
    if (!opts.currentDate)
      throw new ApiaryError('USAGE', "the agents' plan prompt states a current date: pass currentDate");
    return planPrompt(renderAppApiList(subCatalog(catalog, apiIds).sub), opts.currentDate);
  },
  printReply: printAppPrefixedPlan,
};

/** `SFT_PLANNER_RULES` (or the build's `rules`) over `renderCatalogText`'s listing; replies name calls `api`. */
export const compactSftStyle: SftPromptStyle = {
  name: 'compact',
  system: (catalog, apiIds, opts) => renderSftSystemPrompt(catalog, apiIds, opts),
  printReply: printPlanText,
};

/** The core styles by name (`style: 'compact'`). */
export const SFT_PROMPT_STYLES = { agent: agentSftStyle, compact: compactSftStyle } as const;
export type SftPromptStyleName = keyof typeof SFT_PROMPT_STYLES;

/** System prompt of one SFT sample: rules, current date, then the API listing. */
export function renderSftSystemPrompt(
  catalog: Catalog,
  apiIds: readonly string[],
  opts: SftSystemPromptOptions = {},
): string {
  const date = opts.currentDate ? `\nCurrent date: ${opts.currentDate}.` : '';
  return `${opts.rules ?? SFT_PLANNER_RULES}${date}\n\nApps and APIs:\n\n${renderApiListing(catalog, apiIds)}`;
}
