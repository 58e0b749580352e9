import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { checkOpenAiTools } from '../openai-rules.js';
import type { OpenAiToolDefinition } from '../tool-definitions.js';

// ajv is installed with the MCP SDK; tests use it as an independent JSON Schema validator.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

/** What a set of definitions gives under OpenAI's rules and a JSON Schema validator. */
export function auditOpenAiTools(defs: readonly OpenAiToolDefinition[], opts: { compile?: boolean } = {}) {
  const violations = checkOpenAiTools(defs);
  const invalidSchemas: string[] = [];
  for (const d of defs) {
    try {
      if (!ajv.validateSchema(d.function.parameters)) throw new Error(ajv.errorsText(ajv.errors));
      if (opts.compile) ajv.compile(d.function.parameters);
    } catch (e) {
      invalidSchemas.push(`${d.function.name}: ${(e as Error).message}`);
    }
  }
  return {
    definitions: defs.length,
    names: new Set(defs.map((d) => d.function.name)).size,
    rejected: new Set(violations.map((v) => v.tool)).size,
    violations: violations.slice(0, 5).map((v) => `${v.tool} ${v.rule} ${v.path}: ${v.message}`),
    invalidSchemas: invalidSchemas.slice(0, 5),
    invalidSchemaCount: invalidSchemas.length,
  };
}
