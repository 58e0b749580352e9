/**
 * API catalogs: the zod model of apps and APIs, the registry of named catalog sources (which
 * benchmark plugins fill) and exports to JSON Schema, OpenAI tools, AI SDK tools and prompt text.
 * Subpath `apiary/catalog`.
 * @module
 */

// Lookups by app and API id
export { type CatalogIndex, indexCatalog } from './catalog-index.js';
// Where benchmark data lives (bundled data/, $APIARY_DATA, --data)
export { bundledDataDir, findDataFile, resolveDataDir } from './data-paths.js';
// Exports: JSON Schema of an API's inputs
export { apiInputJsonSchema, type JsonSchema } from './export/json-schema.js';
// Exports: OpenAI's published rules for tool definitions, as a checker
export {
  checkOpenAiTool,
  checkOpenAiTools,
  type OpenAiRule,
  type OpenAiRuleViolation,
  type OpenAiToolLike,
} from './export/openai-rules.js';
// Exports: prompt text of a catalog or an API
export { type RenderCatalogOptions, renderApiText, renderCatalogText } from './export/render-text.js';
// Exports: OpenAI tool definitions and AI SDK tools
export {
  assignToolNames,
  type OpenAiToolDefinition,
  type OpenAiToolsOptions,
  type ToolNames,
  toOpenAiTools,
  toolDescriptionOf,
  toolNameOf,
} from './export/tool-definitions.js';
// Loading a registered catalog by name, or a catalog file
export { type LoadCatalogOptions, loadCatalog } from './load-catalog.js';
// The catalog model (zod schemas are the source of the types)
export {
  type Api,
  type App,
  type ArrayType,
  acceptedParameters,
  type Catalog,
  CatalogSchema,
  type EntityType,
  type EnumType,
  type EnumValue,
  type HttpApi,
  type HttpArgument,
  type HttpSecurity,
  missingRequiredParameters,
  type Parameter,
  type ParamType,
  type PrimitiveType,
  type PrimitiveTypeName,
  primitive,
  type ValueConstraints,
} from './schema.js';
// Catalog sources: the catalogs plugins register by name (`--catalog NAME`)
export {
  type CatalogSource,
  type CatalogSourceOptions,
  CatalogSourceRegistry,
  defaultCatalogSources,
  listCatalogSources,
  registerCatalogSource,
  requireDataFile,
} from './sources.js';
