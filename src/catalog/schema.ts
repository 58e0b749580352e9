import { z } from 'zod';

/**
 * The catalog model. Every benchmark's API definitions load into these shapes; the zod
 * schemas are the single source of the types.
 */

const PrimitiveTypeNameSchema = z.enum([
  'string',
  'integer',
  'number',
  'boolean',
  'date',
  'time',
  'datetime',
  'url',
  'file',
  'image',
  'any',
]);
export type PrimitiveTypeName = z.infer<typeof PrimitiveTypeNameSchema>;

const EnumValueSchema = z.object({
  value: z.string(),
  /** Display name, when the source has one distinct from the value. */
  label: z.string().optional(),
});
export type EnumValue = z.infer<typeof EnumValueSchema>;

/** Bounds on a number or a string, as JSON Schema writes them (kept from imported tool schemas). */
export interface ValueConstraints {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  /** A regular expression (ECMAScript syntax) searched in the string, as JSON Schema does (not anchored). */
  pattern?: string;
}
const ValueConstraintsSchema = z.object({
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  exclusiveMinimum: z.number().optional(),
  exclusiveMaximum: z.number().optional(),
  minLength: z.number().int().nonnegative().optional(),
  maxLength: z.number().int().nonnegative().optional(),
  pattern: z.string().optional(),
});

export interface PrimitiveType {
  kind: 'primitive';
  name: PrimitiveTypeName;
  constraints?: ValueConstraints;
}
export interface EnumType {
  kind: 'enum';
  values: EnumValue[];
}
/** A structured type such as ShortcutsBench's `WFContactFieldValue` or `INFile`. */
export interface EntityType {
  kind: 'entity';
  name: string;
  fields?: Parameter[];
}
export interface ArrayType {
  kind: 'array';
  items: ParamType;
}
/** A value of any one of several types (JSON Schema `type` lists, `anyOf`, `oneOf`). */
export interface UnionType {
  kind: 'union';
  types: ParamType[];
}
export type ParamType = PrimitiveType | EnumType | EntityType | ArrayType | UnionType;

export interface Parameter {
  name: string;
  type: ParamType;
  required: boolean;
  default?: unknown;
  description?: string;
}

const ParamTypeSchema: z.ZodType<ParamType> = z.lazy(() =>
  z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('primitive'),
      name: PrimitiveTypeNameSchema,
      constraints: ValueConstraintsSchema.optional(),
    }),
    z.object({ kind: z.literal('enum'), values: z.array(EnumValueSchema).min(1) }),
    z.object({
      kind: z.literal('entity'),
      name: z.string().min(1),
      fields: z.array(ParameterSchema).optional(),
    }),
    z.object({ kind: z.literal('array'), items: ParamTypeSchema }),
    z.object({ kind: z.literal('union'), types: z.array(ParamTypeSchema).min(2) }),
  ]),
);

const ParameterSchema: z.ZodType<Parameter> = z.lazy(() =>
  z.object({
    name: z.string().min(1),
    type: ParamTypeSchema,
    required: z.boolean(),
    default: z.unknown().optional(),
    description: z.string().optional(),
  }),
);

const OutputSchema = z.object({
  name: z.string().min(1),
  type: ParamTypeSchema,
  description: z.string().optional(),
});

/** How to authenticate to an HTTP app: a scheme of its spec and the environment variable holding the secret. */
const HttpSecuritySchema = z.object({
  /** The scheme's name in the spec (`securitySchemes` / `securityDefinitions`). */
  name: z.string().min(1),
  /** `bearer`: `Authorization: Bearer <secret>`; `basic`: the secret is `user:password`; `apiKey`: sent as `paramName`. */
  type: z.enum(['bearer', 'basic', 'apiKey']),
  in: z.enum(['header', 'query', 'cookie']).optional(),
  paramName: z.string().min(1).optional(),
  /** The environment variable the secret is read from at call time (never stored in the catalog). */
  env: z.string().min(1),
});
export type HttpSecurity = z.infer<typeof HttpSecuritySchema>;

const AppSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string(),
  /** The handler identity that alone may execute this app's APIs (permission isolation). */
  owner: z.string().min(1),
  category: z.string().optional(),
  /** An app served over HTTP (imported from an OpenAPI spec): where it is and how to authenticate. */
  http: z.object({ baseUrl: z.string(), security: z.array(HttpSecuritySchema).optional() }).optional(),
});
export type App = z.infer<typeof AppSchema>;

/**
 * Where an HTTP API's argument goes, under its name there: the path, the query, a header, a
 * property of the JSON body (`body`), or the whole JSON body (`whole-body`, a body that is not an object).
 */
const HttpArgumentSchema = z.object({
  in: z.enum(['path', 'query', 'header', 'body', 'whole-body']),
  /** The name in the request when it differs from the parameter's (a body property named like a query parameter). */
  name: z.string().min(1).optional(),
});
export type HttpArgument = z.infer<typeof HttpArgumentSchema>;

const HttpApiSchema = z.object({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']),
  /** The path template of the spec (`/pets/{petId}`), appended to the app's base URL. */
  path: z.string().min(1),
  /** Where each parameter goes, by parameter name. */
  arguments: z.record(z.string(), HttpArgumentSchema),
  /** Alternatives (any one suffices), each a list of the app's scheme names used together; `[]` means no auth. */
  security: z.array(z.array(z.string().min(1))).optional(),
});
export type HttpApi = z.infer<typeof HttpApiSchema>;

const ApiSchema = z.object({
  /** Unique within the catalog, e.g. `Rents.getcarsavailable` or `is.workflow.actions.url`. */
  id: z.string().min(1),
  /** Id of the owning app. */
  app: z.string().min(1),
  /** Name as callers write it (unique within the app). */
  name: z.string().min(1),
  description: z.string(),
  /** Has side effects (booking, payment): needs approval and is never retried. */
  transactional: z.boolean(),
  parameters: z.array(ParameterSchema),
  /**
   * Arguments the API also accepts beyond its advertised `parameters` (all optional), which agents,
   * prompts and tool schemas do not show: for AppBench, the slots of the service's other SGD
   * versions and a search's result slots (docs/catalogs.md "AppBench arguments").
   */
  extraParameters: z.array(ParameterSchema).optional(),
  /**
   * Other complete sets of required arguments, not shown either: a call that gives every name of
   * one set needs none of the required `parameters` (for AppBench, the required slots of the
   * service's other SGD versions: `origin`, `destination`, `departure_date` for Buses_3's `findbus`).
   */
  alternativeRequired: z.array(z.array(z.string().min(1)).min(1)).optional(),
  /** Values an enum parameter also accepts beyond those it advertises, by parameter name (not shown). */
  extraValues: z.record(z.string(), z.array(z.string().min(1))).optional(),
  outputs: z.array(OutputSchema),
  category: z.string().optional(),
  /** The HTTP request this API is (imported from an OpenAPI operation). */
  http: HttpApiSchema.optional(),
});
export type Api = z.infer<typeof ApiSchema>;

/**
 * Every argument an API accepts: its parameters, then its extra parameters; an enum with
 * `extraValues` accepts those values too.
 */
export function acceptedParameters(api: Api): Parameter[] {
  const params = api.extraParameters ? [...api.parameters, ...api.extraParameters] : api.parameters;
  const extra = api.extraValues;
  if (!extra) return params;
  return params.map((p) => {
    const more = extra[p.name]?.filter(
      (v) => p.type.kind === 'enum' && !p.type.values.some((e) => e.value === v),
    );
    if (!more?.length || p.type.kind !== 'enum') return p;
    return { ...p, type: { kind: 'enum', values: [...p.type.values, ...more.map((value) => ({ value }))] } };
  });
}

/**
 * The required parameters a call lacks (`given(name)`: is that argument present), in parameter
 * order; none when the call gives every name of one of the API's `alternativeRequired` sets.
 */
export function missingRequiredParameters(api: Api, given: (name: string) => boolean): Parameter[] {
  const missing = api.parameters.filter((p) => p.required && !given(p.name));
  if (missing.length > 0 && api.alternativeRequired?.some((set) => set.every(given))) return [];
  return missing;
}

export const CatalogSchema = z.object({
  name: z.string().min(1),
  apps: z.array(AppSchema),
  apis: z.array(ApiSchema),
});
export type Catalog = z.infer<typeof CatalogSchema>;

export const primitive = (name: PrimitiveTypeName): PrimitiveType => ({ kind: 'primitive', name });
