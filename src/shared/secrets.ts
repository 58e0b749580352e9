/**
 * Keeps API keys out of what Apiary writes and shows. An endpoint may echo the key it was sent (a
 * 401 body quoting the `Authorization` header): its error text would otherwise reach results.jsonl,
 * traces, the viewer and the terminal. `redactSecrets` replaces, in any text (plain or JSON):
 *
 * - every configured key: each value passed to `registerSecret` (the model's key, `--api-key`,
 *   the vision/image/embeddings keys, the worker's and the MCP server's) and the value of every
 *   environment variable whose name ends in `API_KEY` (`APIARY_API_KEY`, `OPENAI_API_KEY`,
 *   `SERPER_API_KEY`, `APIARY_VISION_API_KEY`, …) or is named by `APIARY_API_KEY_ENV`; values shorter
 *   than {@link MIN_SECRET_CHARS} are left alone (they would blank out ordinary words);
 * - strings that look like credentials whatever their origin ({@link SECRET_PATTERNS}): the token
 *   after `Bearer ` / `Basic ` (8+ token characters), and keys with a vendor's prefix: `sk-…`,
 *   `rk-…` (OpenAI, Anthropic `sk-ant-…`, DeepSeek; 16+ characters after the dash), `sk_live_…` /
 *   `sk_test_…`, `hf_…`, `gsk_…`, GitHub `ghp_…`/`gho_…`/`ghu_…`/`ghs_…`/`ghr_…` and `github_pat_…`,
 *   Slack `xox?-…`, Google `AIza…`, AWS access key ids `AKIA…`.
 *
 * Each is replaced by `[REDACTED]` (a bearer token keeps its `Bearer ` word). The patterns are
 * conservative: each needs a vendor prefix or the word Bearer/Basic and a long run of token
 * characters, so ordinary prose, ids and hashes stay as they are.
 */

const REDACTED = '[REDACTED]';

/** Configured values shorter than this are not redacted by value (the patterns still apply). */
const MIN_SECRET_CHARS = 8;

/**
 * Credential shapes redacted wherever they appear (see the module comment). Each starts with a
 * literal so the scan is fast; a match that continues a word is left alone (checked in
 * `redactSecrets`). The `Bearer`/`Basic` word (group `bearer`) is kept.
 */
const SECRET_PATTERNS: readonly string[] = [
  String.raw`(?<bearer>(?:[Bb]earer|BEARER|[Bb]asic|BASIC)\s+)[A-Za-z0-9._~+/=\-]{8,}`,
  String.raw`(?:sk|rk)-[A-Za-z0-9_\-]{16,}`,
  'sk_(?:live|test)_[A-Za-z0-9]{16,}',
  'hf_[A-Za-z0-9]{30,}',
  'gsk_[A-Za-z0-9]{20,}',
  'gh[opusr]_[A-Za-z0-9]{30,}',
  'github_pat_[A-Za-z0-9_]{22,}',
  String.raw`xox[abprs]-[A-Za-z0-9\-]{10,}`,
  String.raw`AIza[0-9A-Za-z_\-]{35}`,
  'AKIA[0-9A-Z]{16}',
];

const WORD = /[A-Za-z0-9_-]/;

/**
 * Whether a pattern match at `at` continues a word (`task-sk-…`), so is no credential. In JSON
 * text a string's `\n` escape is directly followed by the next character: a key right after an
 * escape (`\nsk-…`) starts a word.
 */
function continuesWord(text: string, at: number): boolean {
  if (at === 0 || !WORD.test(text[at - 1]!)) return false;
  return !(at >= 2 && text[at - 2] === '\\' && 'nrtbf'.includes(text[at - 1]!));
}

const registered = new Set<string>();

/** Adds a key Apiary was given to the values `redactSecrets` removes. */
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= MIN_SECRET_CHARS) registered.add(value);
}

/** Environment variables that hold keys Apiary reads: `*API_KEY`, and the one APIARY_API_KEY_ENV names. */
function envSecrets(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env))
    if (value && value.length >= MIN_SECRET_CHARS && name.endsWith('API_KEY')) out.push(value);
  const named = env.APIARY_API_KEY_ENV ? env[env.APIARY_API_KEY_ENV] : undefined;
  if (named && named.length >= MIN_SECRET_CHARS) out.push(named);
  return out;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

let cached: { key: string; pattern: RegExp } | null = null;

/** The one expression for the current set of secrets (rebuilt when keys or the environment change). */
function secretsPattern(): RegExp {
  const values = new Set([...registered, ...envSecrets(process.env)]);
  // a value in JSON text is spelled with escapes when it holds quotes, backslashes or controls
  for (const v of [...values]) values.add(JSON.stringify(v).slice(1, -1));
  const literals = [...values].sort((a, b) => b.length - a.length);
  const key = literals.join('\u0000');
  if (cached?.key !== key) {
    // configured keys first (group `secret`): they are redacted wherever they appear
    const secret = literals.length ? literals.map(escapeRegExp).join('|') : '(?!)';
    cached = { key, pattern: new RegExp(`(?<secret>${secret})|${SECRET_PATTERNS.join('|')}`, 'g') };
  }
  return cached.pattern;
}

/** `text` with every configured key and credential-looking string replaced by `[REDACTED]`. */
export function redactSecrets(text: string): string {
  const pattern = secretsPattern();
  pattern.lastIndex = 0;
  return text.replace(pattern, (match: string, ...rest: unknown[]) => {
    const groups = rest.at(-1) as { secret?: string; bearer?: string };
    if (groups.secret !== undefined) return REDACTED;
    if (continuesWord(text, rest.at(-3) as number)) return match;
    return groups.bearer ? `${groups.bearer}${REDACTED}` : REDACTED;
  });
}
