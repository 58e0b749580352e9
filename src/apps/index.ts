/**
 * Simulated apps: handlers that answer API calls from a database of Schema-Guided Dialogue
 * results (SQLite), the database itself and the handler contract. Subpath `apiary/apps`.
 * @module
 */

// Building the database file from an SGD release (`apiary apps build-db`)
export {
  buildSgdDatabaseFile,
  type SgdDatabaseBuildInterrupted,
  type SgdDatabaseFileReport,
} from '../benchmarks/appbench/apps/build-sgd-database-file.js';
// Slot value normalisation shared by the database and the apps
export { normalizeSlotValue } from '../benchmarks/appbench/apps/normalize-slot-value.js';
// Simulated apps answering from the SGD database, with recorded side effects
export {
  type CreateSgdAppsOptions,
  countSideEffects,
  createSgdApps,
  listSideEffects,
  type SgdApiBinding,
  SgdAppHandler,
  type SideEffect,
} from '../benchmarks/appbench/apps/sgd-apps.js';
// The SGD results database: open (built file or bundled subset), build, inspect
export {
  buildSgdDatabase,
  defaultSgdDatabasePath,
  findSgdDialogueFiles,
  type OpenSgdDatabaseOptions,
  openBundledSgdDatabase,
  openSgdDatabase,
  readSgdDialogueFiles,
  type SgdBuildCounts,
  type SgdDatabaseHandle,
  type SgdDialogueFile,
  type SgdIntentCounts,
  type SqliteDatabase,
  type SqliteStatement,
  sgdDatabaseCounts,
  sgdDatabaseMeta,
} from '../benchmarks/appbench/apps/sgd-database.js';
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
