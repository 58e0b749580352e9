import { ApiaryError } from '../shared/index.js';

/** Plan text that cannot be parsed; names the source, the 1-based line and column. */
export class PlanParseError extends ApiaryError {
  constructor(
    readonly source: string,
    readonly line: number,
    readonly column: number,
    readonly problem: string,
  ) {
    super('PLAN_PARSE', `${source}:${line}:${column}: ${problem}`);
  }
}
