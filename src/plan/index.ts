/**
 * Plan graphs: the model (steps whose arguments are literals, references, questions or system
 * inputs), its text form (one call per line), JSON files, validation against a catalog and dependency
 * analysis. Subpath `apiary/plan`.
 * @module
 */

// Dependency analysis: levels, parallel and sequential scale
export { analyzePlan, type PlanAnalysis } from './graph.js';

// Plan JSON: parse, print, read a plan file (JSON or text)
export { parsePlanJson, printPlanJson, readPlanFile } from './plan-json.js';
// The error of unparsable plan text (source, line, column)
export { PlanParseError } from './plan-parse-error.js';
// Plan text (one call per line, `App: [outs = api(#k='v')]`): parse and print
export {
  type ParsedPlanText,
  type ParsePlanOptions,
  parsePlanText,
  printPlanText,
  type SkippedLine,
} from './plan-text.js';

// Drawing a plan as a dependency graph
export { renderPlanDag } from './render-dag.js';

// The plan graph model and builders for argument values
export {
  type ArgValue,
  ask,
  dependenciesOf,
  literal,
  type Plan,
  PlanSchema,
  ref,
  type Step,
  StepSchema,
  SYSTEM_INPUTS,
  type SystemInput,
  system,
} from './schema.js';

// Validation against a catalog, one issue per problem
export { literalFits, type PlanIssue, type PlanIssueCode, typeLabel, validatePlan } from './validate-plan.js';
