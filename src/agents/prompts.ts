/**
 * System prompts of the AppBench agents. The texts paraphrase the official prompt files
 * (docs/appbench.md, "Prompts and sampling"); the output-format lines are kept literally because replies are parsed
 * against them.
 */

/** Step 1 of hierarchical prompting: App selection from the App-only list. */
export function appSelectionPrompt(appList: string): string {
  return [
    'You help a user of a smartphone. Based on the descriptions of the Apps below and the user requirement, determine the list of Apps needed to fulfil the requirement.',
    `Here is the information about all accessible Apps: ${appList}`,
    'Be concise. Select several (at least one) useful Apps.',
    'Your ONLY need to return needed app names and your output MUST follow this JSON format: [app1, app2, ...].',
    'User Input:',
  ].join('\n');
}

const planPrompts = new Map<string, Map<string, string>>();

/**
 * Step 2 (and flat prompting): plan generation with the App+API list. The same inputs give the same
 * string instance (a flat run sends one ~10 KB prompt per sample: built once, hashed once).
 */
export function planPrompt(appApiList: string, currentDate: string): string {
  let byDate = planPrompts.get(appApiList);
  if (!byDate) {
    if (planPrompts.size >= 64) planPrompts.clear(); // hierarchical prompting: one list per app subset
    byDate = new Map();
    planPrompts.set(appApiList, byDate);
  }
  let text = byDate.get(currentDate);
  if (text === undefined) {
    text = buildPlanPrompt(appApiList, currentDate);
    byDate.set(currentDate, text);
  }
  return text;
}

function buildPlanPrompt(appApiList: string, currentDate: string): string {
  return [
    'You help a user of a smartphone by planning calls to the APIs of its Apps. Generate the App names and the API calls that fulfil the user requirement.',
    `Here is the information about the accessible Apps and their APIs: ${appApiList}`,
    'Your output MUST follow this format, one API call per line:',
    'app1: [returned_argument1, returned_argument2, ... = app1_api1(#argument1=value1, #argument2=value2, ...)]',
    'where app1_api1 is the App name, an underscore and the API name.',
    'Rules:',
    '1. Argument names and their order must match the API description.',
    '2. Give all required arguments and the optional arguments the user specified; leave out optional arguments the user did not mention. Never fill in default values.',
    "3. When a value depends on another API, use that API's returned argument name without quotes, e.g. #date=date. Quote literal values with '', e.g. #date='2019-03-01'. Never quote a dependency.",
    `4. Infer dates from the current date "${currentDate}".`,
    '5. Order the calls by their dependencies: a call comes after every call whose results it uses.',
    'Examples:',
    'app1: [output1 = app1_api1(#argument1=value1)]',
    'app1: [output2 = app1_api2(#argument2=output1)]',
    'app2: [output3 = app2_api3(#argument3=output1, #argument4=output2)]',
    'User Input:',
  ].join('\n');
}
