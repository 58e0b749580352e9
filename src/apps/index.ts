/**
 * Simulated apps: the handler contract the executor calls (an app answers API calls; its result
 * may carry content parts). A benchmark's simulated apps live in its plugin. Subpath `apiary/apps`.
 * @module
 */

// The app handler contract the executor calls
export {
  type AppCallContext,
  type AppCallResult,
  type AppHandler,
  type ContentPart,
  ContentPartSchema,
  type ContentResult,
  isContentResult,
} from './app.js';
