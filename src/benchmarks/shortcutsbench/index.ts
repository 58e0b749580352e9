/**
 * ShortcutsBench (docs/shortcutsbench.md): the official files, the action model
 * (classes, longest-branch length, levels, candidate APIs, history normalisation) and the scorer
 * in official and corrected modes. Subpath `apiary/shortcutsbench`.
 * @module
 */

// the action model
export {
  type ActionClass as ShortcutsActionClass,
  actionClass as shortcutsActionClass,
  FILTER_IDS as SHORTCUTS_FILTER_IDS,
  SYSTEM_INPUT_TYPES as SHORTCUTS_SYSTEM_INPUT_TYPES,
} from './actions.js';
// the teacher-forced solver (docs/shortcutsbench.md §8): prompts, reply parsing, the per-shortcut loop
export { loadShortcutsApis } from './api-files.js';
// the no-model baseline (BM25 API choice, rule-based parameters)
export {
  baselineParameters as shortcutsBaselineParameters,
  baselineStepper as shortcutsBaselineStepper,
} from './baseline.js';
export { type CandidateApis, candidateApis, candidateSeed } from './candidates.js';
// the official files and scoring a results file
export {
  loadCategories as loadShortcutsCategories,
  loadGoldShortcuts,
  loadQueries as loadShortcutsQueries,
  loadSignificantParams,
  SHORTCUTS_FILES,
  type ShortcutsFileRole,
  shortcutsFilePath,
} from './data-files.js';
// streaming the gold file (bounded memory)
export { goldRecords as streamGoldRecords, streamGoldShortcuts, streamTopLevelJson } from './gold-stream.js';
export { type TopLevelElement, TopLevelJsonSplitter } from './json-split.js';
// lexeme-preserving JSON (ints and floats stay apart, as in Python)
export {
  dumpsPythonJson as dumpsShortcutsJson,
  type Json as ShortcutsJson,
  parseJson as parseShortcutsJson,
  stringifyJson as stringifyShortcutsJson,
} from './json-value.js';
// judges with Python's semantics
export {
  judgeReferenceCorrected,
  judgeReferenceOfficial,
  type ReferenceOutcome,
} from './judge-reference.js';
export {
  type LengthResult,
  type Level as ShortcutsLevel,
  levelOf as shortcutsLevelOf,
  shortcutLength,
} from './length.js';
export {
  defaultOutputNames,
  normaliseAction,
  renameControlFlow,
  returnValueNames,
} from './normalise.js';
// the plugin: what `registerPlugin` takes (listed in src/benchmarks/builtin.ts)
export { shortcutsBenchPlugin } from './plugin.js';
export {
  NO_DESCRIPTION as SHORTCUTS_NO_DESCRIPTION,
  type PromptCandidate,
  pyListRepr,
  shortcutsSystemPrompt,
  shortcutsUserPrompt,
} from './prompts.js';
export { judgeEqualCorrected, judgeEqualOfficial } from './python-values.js';
// the registered task (`apiary eval shortcuts`)
export {
  type ShortcutsBothModes,
  shortcutsDefinition,
} from './register.js';
export { type AgentBSeq, parseShortcutsReply } from './reply.js';
export { formatShortcutsReport } from './report-format.js';
// results and scoring
export {
  type BSeq,
  parseResultRecords,
  type ResultRecord,
} from './result-records.js';
export {
  type ModeTallies,
  type ScoreMode as ShortcutsScoreMode,
  type ShortcutScore,
  type SignificantParams,
  scoreResultRecord,
} from './score-record.js';
export { type ShortcutsScoring, scoreShortcutsResults } from './score-shortcuts.js';
export {
  type ImportedShortcut,
  parseShortcutBytes,
  plistToJson,
  readShortcutFile,
  type ShortcutFileFormat,
  sniffShortcutFormat,
} from './shortcut-file.js';
// real shortcut files: import, listing, plan, folder datasets
export {
  type FolderShortcut,
  folderOfficialFiles,
  folderSignificantParams,
  isNecessaryCandidate,
  necessaryParams,
  type OfficialFolderFiles,
  readShortcutFolder,
} from './shortcut-folder.js';
export {
  describeShortcut,
  describeValue as describeShortcutValue,
  formatShortcutListing,
  type ListedAction as ShortcutListedAction,
  type ListedForm as ShortcutValueListedForm,
  type ListedParam as ShortcutListedParam,
  type ListedVariable as ShortcutListedVariable,
  type ShortcutListing,
} from './shortcut-listing.js';
export {
  type PlanGap as ShortcutPlanGap,
  planAppAndApi,
  type ShortcutPlan,
  shortcutToPlan,
} from './shortcut-plan.js';
export {
  type Accuracy as ShortcutsAccuracy,
  SHORTCUT_CATEGORIES,
  type ShortcutsReport,
  summarizeShortcuts,
} from './summary.js';
export {
  isContextOrSafetyError,
  modelStepper,
  type ShortcutRun,
  type ShortcutStep,
  type ShortcutStepper,
  type ShortcutsApis,
  type ShortcutToSolve,
  type StepReply,
  solveShortcut,
} from './teacher-forced.js';
