import type { Api, App, Catalog, HttpApi, HttpArgument, HttpSecurity, Parameter } from '../catalog/index.js';
import { jsonSchemaToParameters } from '../mcp/index.js';
import { InputInvalidError } from '../shared/index.js';
import { isRecord, type OpenApiSpec, type SpecObject } from './read-spec.js';

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'] as const;
type Method = (typeof METHODS)[number];

export interface OpenApiImportOptions {
  /** The app id (default: the spec's title, slugified). */
  name?: string;
  /** The base URL calls go to (default: the spec's first server). */
  baseUrl?: string;
}

/** A spec as a catalog, and the operations left out (each error names the spec and the JSON pointer). */
export interface OpenApiImport {
  catalog: Catalog;
  problems: InputInvalidError[];
}

/** `Pet Store API` → `pet-store-api`: an app id. */
function slugify(text: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'api'
  );
}

/** A JSON Pointer segment (`/pets/{id}` → `~1pets~1{id}`). */
const pointerSegment = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** An API name tool exports accept: letters, digits and `_` (`get /pets/{id}` → `get_pets_id`). */
const apiNameOf = (text: string): string =>
  text
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60) || 'operation';

/** The environment variable a scheme's secret is read from: `PET_STORE_APIKEY`. */
const envNameOf = (app: string, scheme: string): string =>
  `${app}_${scheme}`
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');

/** The first server's URL with its variables at their defaults (3.x), or scheme://host/basePath (2.0). */
function baseUrlOf(spec: OpenApiSpec): string {
  const { doc } = spec;
  if (spec.version === 'swagger2') {
    if (typeof doc.host !== 'string') return typeof doc.basePath === 'string' ? doc.basePath : '';
    const scheme =
      Array.isArray(doc.schemes) && typeof doc.schemes[0] === 'string' ? doc.schemes[0] : 'https';
    return `${scheme}://${doc.host}${typeof doc.basePath === 'string' ? doc.basePath : ''}`;
  }
  const server = Array.isArray(doc.servers) ? doc.servers[0] : undefined;
  if (!isRecord(server) || typeof server.url !== 'string') return '';
  const variables = isRecord(server.variables) ? server.variables : {};
  return server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const v = variables[name];
    return isRecord(v) && v.default !== undefined ? String(v.default) : whole;
  });
}

/** The security schemes Apiary can apply: API keys, HTTP bearer/basic, OAuth2 and OpenID tokens as bearer. */
function securityOf(spec: OpenApiSpec, app: string): HttpSecurity[] {
  const { doc } = spec;
  const schemes =
    spec.version === 'swagger2'
      ? doc.securityDefinitions
      : isRecord(doc.components)
        ? doc.components.securitySchemes
        : undefined;
  if (!isRecord(schemes)) return [];
  const out: HttpSecurity[] = [];
  for (const [name, s] of Object.entries(schemes)) {
    if (!isRecord(s)) continue;
    const env = envNameOf(app, name);
    if (
      s.type === 'apiKey' &&
      typeof s.name === 'string' &&
      ['header', 'query', 'cookie'].includes(String(s.in))
    )
      out.push({ name, type: 'apiKey', in: s.in as 'header' | 'query' | 'cookie', paramName: s.name, env });
    else if (s.type === 'basic' || (s.type === 'http' && String(s.scheme).toLowerCase() === 'basic'))
      out.push({ name, type: 'basic', env });
    else if (
      (s.type === 'http' && String(s.scheme).toLowerCase() === 'bearer') ||
      s.type === 'oauth2' ||
      s.type === 'openIdConnect'
    )
      out.push({ name, type: 'bearer', env });
  }
  return out;
}

/** Security requirements (`[{ apiKey: [] }]`) as lists of scheme names; undefined when the spec has none. */
function requirementsOf(security: unknown): string[][] | undefined {
  if (!Array.isArray(security)) return undefined;
  return security.filter(isRecord).map((r) => Object.keys(r));
}

/** A parameter object's schema: 3.x keeps it under `schema`, 2.0 inline (`type`, `enum`, `items`, bounds). */
function parameterSchema(p: SpecObject, version: OpenApiSpec['version']): unknown {
  if (version === 'openapi3' || isRecord(p.schema)) return p.schema ?? {};
  const { name: _n, in: _i, required: _r, description: _d, collectionFormat: _c, ...schema } = p;
  return schema;
}

/** The JSON schema of an operation's request body, if it has one sent as JSON. */
function bodySchemaOf(
  op: SpecObject,
  params: SpecObject[],
  spec: OpenApiSpec,
): { schema: unknown; required: boolean } | undefined {
  if (spec.version === 'swagger2') {
    const body = params.find((p) => p.in === 'body');
    return body ? { schema: body.schema ?? {}, required: body.required === true } : undefined;
  }
  const body = op.requestBody;
  if (!isRecord(body) || !isRecord(body.content)) return undefined;
  const json = Object.entries(body.content).find(([type]) => /^application\/([\w.+-]*\+)?json\b/.test(type));
  if (!json) return undefined;
  const media = json[1];
  return { schema: isRecord(media) ? (media.schema ?? {}) : {}, required: body.required === true };
}

interface OperationContext {
  spec: OpenApiSpec;
  app: string;
  path: string;
  method: Method;
  pathItem: SpecObject;
  op: SpecObject;
  pointer: string;
  name: string;
}

/** One operation as one API: its parameters (path, query, header, then the JSON body's properties). */
function apiOf(c: OperationContext): Api {
  const { spec, op, pathItem, pointer } = c;
  const fail = (field: string, problem: string): never => {
    throw new InputInvalidError({ file: spec.file, record: pointer, field }, problem);
  };
  // Operation parameters override path-level ones with the same name and location.
  const byKey = new Map<string, SpecObject>();
  for (const list of [pathItem.parameters, op.parameters])
    if (Array.isArray(list))
      for (const p of list) if (isRecord(p)) byKey.set(`${String(p.in)}:${String(p.name)}`, p);
  const params = [...byKey.values()];
  const parameters: Parameter[] = [];
  const args: Record<string, HttpArgument> = {};
  const schemaSource = { server: c.app, tool: pointer, file: spec.file };
  for (const p of params) {
    if (p.in === 'body') continue;
    if (p.in === 'formData') fail('parameters', 'form parameters (formData) are not supported');
    if (!['path', 'query', 'header'].includes(String(p.in))) continue; // cookies: not sent
    if (typeof p.name !== 'string' || !p.name) fail('parameters', 'a parameter has no "name"');
    const name = p.name as string;
    const [param] = jsonSchemaToParameters(
      { type: 'object', properties: { [name]: parameterSchema(p, spec.version) }, required: [] },
      schemaSource,
    );
    const entry: Parameter = { ...param!, required: p.in === 'path' || p.required === true };
    if (typeof p.description === 'string' && p.description) entry.description = p.description;
    parameters.push(entry);
    args[name] = { in: p.in as 'path' | 'query' | 'header' };
  }
  const body = bodySchemaOf(op, params, spec);
  if (body) {
    const schema = body.schema;
    const isObject =
      isRecord(schema) &&
      (schema.type === 'object' || (schema.type === undefined && isRecord(schema.properties)));
    if (isObject) {
      // The body's properties are the API's parameters; a name taken by a path/query/header one gets `body_`.
      for (const prop of jsonSchemaToParameters(schema, schemaSource)) {
        const name = args[prop.name] ? `body_${prop.name}` : prop.name;
        parameters.push({ ...prop, name, required: body.required && prop.required });
        args[name] = name === prop.name ? { in: 'body' } : { in: 'body', name: prop.name };
      }
    } else {
      const [whole] = jsonSchemaToParameters({ type: 'object', properties: { body: schema } }, schemaSource);
      const name = args.body ? 'request_body' : 'body';
      parameters.push({ ...whole!, name, required: body.required, description: 'The request body (JSON)' });
      args[name] = { in: 'whole-body' };
    }
  }
  const http: HttpApi = {
    method: c.method.toUpperCase() as HttpApi['method'],
    path: c.path,
    arguments: args,
  };
  const security = requirementsOf(op.security);
  if (security) http.security = security;
  const description = [op.summary, op.description]
    .filter((t): t is string => typeof t === 'string' && t.trim() !== '')
    .join('\n\n');
  return {
    id: `${c.app}.${c.name}`,
    app: c.app,
    name: c.name,
    description: description || `${c.method.toUpperCase()} ${c.path}`,
    // Reading never changes state; anything else may, so it waits for approval and is not retried.
    transactional: c.method !== 'get' && c.method !== 'head',
    parameters,
    outputs: [],
    http,
  };
}

/**
 * An OpenAPI 3.0/3.1 or Swagger 2.0 spec (already dereferenced, `readOpenApiSpec`) as a catalog:
 * one app (owner `openapi:<app>`, its base URL and security schemes under `http`) and one API per
 * operation, named by its `operationId` or method and path, unique within the app. An operation
 * whose parameters have no Apiary equivalent is left out and reported in `problems`.
 */
export function openApiToCatalog(spec: OpenApiSpec, opts: OpenApiImportOptions = {}): OpenApiImport {
  const { doc, file } = spec;
  const info = isRecord(doc.info) ? doc.info : {};
  const title = typeof info.title === 'string' && info.title.trim() ? info.title.trim() : 'api';
  const appId = opts.name ?? slugify(title);
  const defaultSecurity = requirementsOf(doc.security) ?? [];
  const app: App = {
    id: appId,
    name: title,
    description: typeof info.description === 'string' ? info.description : '',
    owner: `openapi:${appId}`,
    category: 'openapi',
    http: { baseUrl: opts.baseUrl ?? baseUrlOf(spec), security: securityOf(spec, appId) },
  };
  const apis: Api[] = [];
  const problems: InputInvalidError[] = [];
  const taken = new Set<string>();
  for (const [path, pathItem] of Object.entries(doc.paths as SpecObject)) {
    if (!isRecord(pathItem)) continue;
    for (const method of METHODS) {
      const op = pathItem[method];
      if (!isRecord(op)) continue;
      const pointer = `#/paths/${pointerSegment(path)}/${method}`;
      let name = apiNameOf(
        typeof op.operationId === 'string' && op.operationId ? op.operationId : `${method} ${path}`,
      );
      for (let n = 2; taken.has(name); n++) name = `${apiNameOf(name.replace(/_\d+$/, ''))}_${n}`;
      try {
        const api = apiOf({ spec, app: appId, path, method, pathItem, op, pointer, name });
        if (!api.http!.security) api.http!.security = defaultSecurity;
        apis.push(api);
        taken.add(name);
      } catch (error) {
        if (!(error instanceof InputInvalidError)) throw error;
        problems.push(error);
      }
    }
  }
  if (!apis.length && !problems.length)
    throw new InputInvalidError({ file, field: '/paths' }, 'the spec has no operations');
  return { catalog: { name: `openapi-${appId}`, apps: [app], apis }, problems };
}
