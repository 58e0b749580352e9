import type { Command } from 'commander';
import {
  apiInputJsonSchema,
  type Catalog,
  indexCatalog,
  listCatalogSources,
  loadCatalog,
  renderApiText,
  renderCatalogText,
  toOpenAiTools,
} from '../../catalog/index.js';
import { NotFoundError } from '../../shared/index.js';
import { parseChoice, usageError } from '../options.js';
import { printJson } from '../output.js';
import { registerCatalogImportCommands } from './catalog-import.js';

interface CatalogFlags {
  catalog: string;
  data?: string;
  json?: boolean;
  app?: string;
  format?: string;
  strict?: boolean;
}

// the catalogs the registered plugins supply (the CLI registers the built-in ones at start), the first the default
const catalogOption = (cmd: Command) =>
  cmd
    .option(
      '-c, --catalog <name|file>',
      [...listCatalogSources().map((s) => s.name), 'path to a catalog JSON'].join(' | '),
      listCatalogSources()[0]?.name,
    )
    .option(
      '--data <dir>',
      'benchmark data folder (official layout); default $APIARY_DATA, then bundled data',
    )
    .option('--json', 'machine-readable output');

function load(flags: CatalogFlags): Catalog {
  return loadCatalog(flags.catalog, { dataDir: flags.data });
}

export function registerCatalogCommands(program: Command): void {
  const catalog = program.command('catalog').description('inspect and export API catalogs');

  catalogOption(catalog.command('list'))
    .description('list the apps and APIs of a catalog')
    .option('--app <id>', 'only this app')
    .action((flags: CatalogFlags) => {
      const c = load(flags);
      const apis = flags.app ? c.apis.filter((a) => a.app === flags.app) : c.apis;
      if (flags.app && !c.apps.some((a) => a.id === flags.app))
        throw new NotFoundError(
          'app',
          flags.app,
          c.apps.map((a) => a.id),
        );
      if (flags.json) {
        printJson({
          catalog: c.name,
          apps: c.apps.length,
          apis: apis.map((a) => ({
            id: a.id,
            app: a.app,
            name: a.name,
            transactional: a.transactional,
            parameters: a.parameters.length,
          })),
        });
        return;
      }
      process.stdout.write(`${c.name}: ${c.apps.length} apps, ${c.apis.length} APIs\n`);
      for (const a of apis)
        process.stdout.write(
          `${a.app}\t${a.name}${a.transactional ? '\t(transactional)' : ''}\t${a.parameters.length} params\n`,
        );
    });

  catalogOption(catalog.command('show'))
    .description('show one app or API in detail')
    .argument('<id>', 'app id, API id, or "<app>.<api>"')
    .action((id: string, flags: CatalogFlags) => {
      const c = load(flags);
      const index = indexCatalog(c);
      const dot = id.indexOf('.');
      const api = index.apiById(id) ?? (dot > 0 ? index.api(id.slice(0, dot), id.slice(dot + 1)) : undefined);
      const app = index.app(id);
      if (api) {
        if (flags.json) printJson({ ...api, inputSchema: apiInputJsonSchema(api) });
        else process.stdout.write(`${api.app}: ${renderApiText(api)}\n`);
        return;
      }
      if (app) {
        if (flags.json) printJson({ ...app, apis: index.apisOf(app.id) });
        else process.stdout.write(`${renderCatalogText(c, { apps: [app.id] })}\n`);
        return;
      }
      throw new NotFoundError('app or API', id);
    });

  catalogOption(catalog.command('export'))
    .description('export a catalog as Apiary JSON, OpenAI tool definitions, or prompt text')
    .option('-f, --format <format>', 'json | openai | text', 'json')
    .option('--app <id>', 'only this app')
    .option(
      '--strict',
      'with --format openai: strict-mode definitions (every property required, optional ones nullable)',
    )
    .action((flags: CatalogFlags) => {
      const format = parseChoice('--format', flags.format ?? 'json', ['json', 'openai', 'text'] as const);
      if (flags.strict && format !== 'openai')
        throw usageError('--strict', 'used with --format openai', format);
      const c = load(flags);
      const apis = flags.app ? c.apis.filter((a) => a.app === flags.app) : c.apis;
      switch (format) {
        case 'json':
          printJson(flags.app ? { ...c, apps: c.apps.filter((a) => a.id === flags.app), apis } : c);
          return;
        case 'openai':
          printJson(toOpenAiTools(apis, { strict: flags.strict === true }));
          return;
        case 'text':
          process.stdout.write(`${renderCatalogText(c, flags.app ? { apps: [flags.app] } : {})}\n`);
          return;
      }
    });

  registerCatalogImportCommands(catalog);
}
