import { z } from 'zod';

/**
 * The executable side of a catalog app. Each app runs under its own handler identity
 * (`owner`), and the executor dispatches a step only to the handler whose `appId` owns the
 * step's API (permission isolation).
 */
export interface AppCallContext {
  /** The identity the executor dispatches under; a handler refuses calls not addressed to its owner. */
  caller: string;
  signal?: AbortSignal;
}

/** One piece of what a call returns, as a model or a person is shown it. */
export const ContentPartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('json'), value: z.unknown() }),
  z.object({ type: z.literal('rows'), rows: z.array(z.record(z.string(), z.unknown())) }),
  /** A file on disk that is an image (tools that draw or plot). */
  z.object({ type: z.literal('image'), path: z.string(), mediaType: z.string() }),
  z.object({ type: z.literal('file'), path: z.string(), mediaType: z.string().optional() }),
]);
export type ContentPart = z.infer<typeof ContentPartSchema>;

/** A result given directly as content parts (e.g. a tool that returns an image it drew). */
export interface ContentResult {
  content: ContentPart[];
}

/** Rows a search returns, the record a transactional call confirms, or content parts. */
export type AppCallResult = Record<string, unknown> | Array<Record<string, unknown>> | ContentResult;

/**
 * Whether a result is given as content parts: a record whose `content` is a list of valid
 * parts. Any other record (even one with a `content` field of another shape) is a plain record.
 */
export function isContentResult(result: unknown): result is ContentResult {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return false;
  const content = (result as { content?: unknown }).content;
  return (
    Object.hasOwn(result, 'content') &&
    Array.isArray(content) &&
    content.every((part) => ContentPartSchema.safeParse(part).success)
  );
}

export interface AppHandler {
  readonly appId: string;
  readonly owner: string;
  /**
   * True when this handler knows `api` changes state even if the catalog says otherwise (e.g. SGD
   * treats AppBench's non-transactional `buyeventtickets` as a purchase). The executor then
   * handles the call as transactional: approval first, no retries.
   */
  hasSideEffects?(api: string): boolean;
  /** Runs `api` with resolved argument values; throws an ApiaryError on refusal or bad arguments. */
  call(api: string, args: Record<string, unknown>, ctx: AppCallContext): Promise<AppCallResult>;
}
