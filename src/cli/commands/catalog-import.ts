import type { Command } from 'commander';
import type { Catalog } from '../../catalog/index.js';
import type { McpServerSpec } from '../../mcp/index.js';
import { ApiaryError } from '../../shared/index.js';
import { printMcpProgress } from '../mcp-progress.js';
import { parseInteger, parseOutputPath, writeOutputFile } from '../options.js';
import { printJson, terminalText } from '../output.js';

interface ImportFlags {
  url?: string;
  name: string;
  out?: string;
  header?: string[];
  json?: boolean;
  connectTimeoutMs?: string;
}

interface OpenApiImportFlags {
  name?: string;
  baseUrl?: string;
  out?: string;
  json?: boolean;
}

/** `apiary catalog import mcp -- <command …>` (or `--url URL`): a server's tools as a catalog; `… import openapi SPEC`: a spec's operations. */
export function registerCatalogImportCommands(catalog: Command): void {
  const imports = catalog.command('import').description('import APIs from other sources into a catalog');
  imports
    .command('mcp')
    .description(
      'connect to an MCP server, list its tools and convert them to a catalog (one app <name>, APIs <name>.<tool>); execute them with `--servers` on ask, run and mcp serve',
    )
    .argument('[command...]', 'the command that starts a stdio server (after --)')
    .option('--url <url>', 'a Streamable HTTP server instead of a command')
    .option('--name <name>', 'server name: the app id of its tools', 'server')
    .option('--out <file>', 'write the catalog JSON (Apiary format) here')
    .option('--json', 'print the catalog JSON')
    .option(
      '--connect-timeout-ms <ms>',
      'time to start, connect and list the tools, in ms (default 60000, enough for a cold `npx -y`)',
    )
    .action(async (command: string[], flags: ImportFlags) => {
      if (flags.url && command.length)
        throw new ApiaryError('USAGE', 'pass a command after -- or --url URL, not both');
      if (!flags.url && !command.length)
        throw new ApiaryError(
          'USAGE',
          'name the server: apiary catalog import mcp -- <command …>, or --url URL',
        );
      // checked before the server starts (docs/errors.md: outputs before any work)
      parseOutputPath('--out', flags.out);
      const spec: McpServerSpec = flags.url
        ? { url: flags.url }
        : { command: command[0]!, args: command.slice(1) };
      // the MCP SDK only when a server is imported (it adds ~0.2 s to every command that loads it)
      const { importMcpServer } = await import('../../mcp/index.js');
      const server = await importMcpServer(flags.name, spec, {
        onProgress: printMcpProgress,
        ...(flags.connectTimeoutMs === undefined
          ? {}
          : { connectTimeoutMs: parseInteger('--connect-timeout-ms', flags.connectTimeoutMs, { min: 1 }) }),
      });
      try {
        const imported: Catalog = { name: `mcp-${flags.name}`, apps: [server.app], apis: server.apis };
        for (const p of server.problems)
          process.stderr.write(`warning: tool left out: ${terminalText(p.message)}\n`);
        if (flags.out) writeOutputFile('--out', flags.out, `${JSON.stringify(imported, null, 2)}\n`);
        if (flags.json) printJson(imported);
        else {
          process.stdout.write(
            `${flags.name}: ${server.apis.length} tool(s) imported, ${server.problems.length} left out${flags.out ? `; catalog written to ${flags.out}` : ''}\n`,
          );
          for (const a of server.apis)
            process.stdout.write(
              `${a.id}\t${a.transactional ? 'transactional' : 'read-only'}\t${a.parameters.length} params\n`,
            );
        }
      } finally {
        await server.connection.close();
      }
    });
  imports
    .command('openapi')
    .description(
      'convert an OpenAPI 3.0/3.1 or Swagger 2.0 spec (YAML or JSON, file or URL) to a catalog: one app, one API per operation, executable over HTTP (docs/catalogs.md "OpenAPI import")',
    )
    .argument('<spec>', 'the spec: a file path or an http(s) URL')
    .option('--name <name>', 'the app id (default: the spec title, slugified)')
    .option('--base-url <url>', "the URL calls go to (default: the spec's first server)")
    .option('--out <file>', 'write the catalog JSON (Apiary format) here')
    .option('--json', 'print the catalog JSON')
    .action(async (spec: string, flags: OpenApiImportFlags) => {
      parseOutputPath('--out', flags.out); // before the spec is read or downloaded
      const { openApiToCatalog, readOpenApiSpec } = await import('../../openapi/index.js');
      const { catalog: imported, problems } = openApiToCatalog(await readOpenApiSpec(spec), {
        ...(flags.name === undefined ? {} : { name: flags.name }),
        ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
      });
      for (const p of problems)
        process.stderr.write(`warning: operation left out: ${terminalText(p.message)}\n`);
      if (flags.out) writeOutputFile('--out', flags.out, `${JSON.stringify(imported, null, 2)}\n`);
      if (flags.json) printJson(imported);
      else {
        const app = imported.apps[0]!;
        process.stdout.write(
          `${app.id}: ${imported.apis.length} operation(s) imported, ${problems.length} left out; base URL ${app.http?.baseUrl || '(none: pass --base-url)'}${flags.out ? `; catalog written to ${flags.out}` : ''}\n`,
        );
        for (const a of imported.apis)
          process.stdout.write(
            `${a.id}\t${a.http?.method} ${a.http?.path}\t${a.transactional ? 'transactional' : 'read-only'}\t${a.parameters.length} params\n`,
          );
      }
    });
}
