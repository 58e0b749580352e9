/**
 * How a grammar travels with a model call: `generate({ constraint })` sends it as AI SDK provider
 * options under {@link CONSTRAINT_PROVIDER_KEY}, so a provider that can constrain decoding (the
 * local GGUF one) reads it and every other provider ignores it.
 */

/** A grammar to generate under, and a name for it (traces, cache keys, errors). */
export interface OutputConstraint {
  name: string;
  /** GBNF text with a `root` rule. */
  grammar: string;
}

/**
 * The `providerOptions` key of a constraint: `{ apiaryGrammar: { grammar, constraintName } }`. Not
 * `apiary`: the OpenAI-compatible provider of ../resolve-model.ts is named `apiary`, and such a
 * provider copies `providerOptions[its name]` into the HTTP request body (OpenAI refuses unknown
 * fields).
 */
export const CONSTRAINT_PROVIDER_KEY = 'apiaryGrammar';

/** What a provider finds under `providerOptions[CONSTRAINT_PROVIDER_KEY]` (a type: JSON, as provider options are). */
export type ConstraintProviderOptions = {
  grammar: string;
  constraintName: string;
};

/** The provider options that carry a constraint (undefined without one). */
export function constraintProviderOptions(
  constraint: OutputConstraint | undefined,
): Record<string, ConstraintProviderOptions> | undefined {
  return constraint === undefined
    ? undefined
    : { [CONSTRAINT_PROVIDER_KEY]: { grammar: constraint.grammar, constraintName: constraint.name } };
}

/** The constraint a provider was given, if any (for providers: tolerant of any other options). */
export function readConstraint(providerOptions: unknown): ConstraintProviderOptions | undefined {
  if (providerOptions === null || typeof providerOptions !== 'object') return undefined;
  const entry = (providerOptions as Record<string, unknown>)[CONSTRAINT_PROVIDER_KEY];
  if (entry === null || typeof entry !== 'object') return undefined;
  const { grammar, constraintName } = entry as Record<string, unknown>;
  return typeof grammar === 'string'
    ? { grammar, constraintName: typeof constraintName === 'string' ? constraintName : 'unnamed' }
    : undefined;
}
