/**
 * OpenAPI import: an OpenAPI 3.0/3.1 or Swagger 2.0 spec as a catalog app (one API per operation)
 * and the HTTP handler that executes it behind `dispatchCall`. See docs/catalogs.md.
 * @module
 */

// Executing an imported catalog over HTTP
export { type OpenApiHandlerOptions, type OpenApiHandlers, openApiHandlers } from './http-handler.js';
// A spec as a catalog
export { type OpenApiImport, type OpenApiImportOptions, openApiToCatalog } from './import.js';
// Reading a spec (YAML or JSON, $refs resolved)
export {
  type OpenApiSpec,
  type ParseOpenApiSpecOptions,
  parseOpenApiSpec,
  readOpenApiSpec,
} from './read-spec.js';
