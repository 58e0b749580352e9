/**
 * API catalogs: the zod model of apps and APIs, loaders for the built-in benchmarks
 * (AppBench, SGD, ShortcutsBench, GTA, ToolBench) and exports to JSON Schema, OpenAI tools, AI SDK
 * tools and prompt text. Subpath `apiary/catalog`.
 * @module
 */

// The SGD services behind the AppBench apps
export { appBenchSgdSource } from '../benchmarks/appbench/catalog.js';
// SGD service schemas
export type { SgdService } from '../benchmarks/appbench/sgd-catalog.js';
// GTA's tool categories (the catalog's app categories and GTA's per-category F1)
export { GTA_TOOL_CATEGORIES, gtaCatalog } from '../benchmarks/gta/catalog.js';
// Lookups by app and API id
export { type CatalogIndex, indexCatalog } from './catalog-index.js';
// Where benchmark data lives (bundled data/, $APIARY_DATA, --data)
export { bundledDataDir, resolveDataDir } from './data-paths.js';
// Exports: JSON Schema of an API's inputs
export { apiInputJsonSchema, type JsonSchema } from './export/json-schema.js';
// Exports: prompt text of a catalog or an API
export { type RenderCatalogOptions, renderApiText, renderCatalogText } from './export/render-text.js';
// Exports: OpenAI tool definitions and AI SDK tools
export {
  type OpenAiToolDefinition,
  toAiSdkTools,
  toOpenAiTools,
  toolNameOf,
} from './export/tool-definitions.js';
// Loading a built-in catalog (appbench, sgd, shortcuts, gta, toolbench) or a catalog file
export { type LoadCatalogOptions, loadCatalog, loadSgdServices } from './load-catalog.js';

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
  type Parameter,
  type ParamType,
  type PrimitiveType,
  type PrimitiveTypeName,
  primitive,
} from './schema.js';
