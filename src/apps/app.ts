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

/** Rows a search returns, or the record a transactional call confirms. */
export type AppCallResult = Record<string, unknown> | Array<Record<string, unknown>>;

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
