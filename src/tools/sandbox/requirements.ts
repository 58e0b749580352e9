import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { SANDBOX_DEBIAN_PACKAGES } from './config.js';

const INSTALL_HINT = `install the Debian packages: apt-get install ${SANDBOX_DEBIAN_PACKAGES}`;

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** bwrap's path: the configured one, else the first on PATH, else /usr/bin/bwrap; undefined if none. */
export function findBwrap(
  configured: string | undefined,
  pathVar = process.env.PATH ?? '',
): string | undefined {
  if (configured) return isExecutable(configured) ? configured : undefined;
  const dirs = [...pathVar.split(delimiter).filter(Boolean), '/usr/bin'];
  return dirs.map((dir) => join(dir, 'bwrap')).find(isExecutable);
}

/** The options of this bwrap that Apiary uses only when present. */
export interface BwrapFeatures {
  /** `--disable-userns` (bubblewrap ≥ 0.8). */
  disableUserns: boolean;
  /** `--size` for a tmpfs (bubblewrap ≥ 0.7). */
  tmpfsSize: boolean;
}

export function bwrapFeatures(bwrap: string): BwrapFeatures {
  const help = spawnSync(bwrap, ['--help'], { encoding: 'utf8', env: {}, timeout: 5_000 });
  const text = `${help.stdout}${help.stderr}`;
  return { disableUserns: text.includes('--disable-userns'), tmpfsSize: /--size\b/.test(text) };
}

/** Why a run cannot be bounded here: a bwrap without `--size` and no cgroup whose memory limit covers the tmpfs. */
export const NO_TMPFS_SIZE =
  'this bubblewrap cannot limit the size of the work folder (--size needs bubblewrap ≥ 0.7) and no ' +
  'cgroup is available to bound it (Apiary makes one per run only when it runs as root): upgrade ' +
  'bubblewrap, or run Apiary as root';

/** Python modules missing from `python` (found without importing them: fast). */
function missingPythonModules(python: string, modules: readonly string[]): string[] {
  if (modules.length === 0) return [];
  const probe = spawnSync(
    python,
    [
      '-I',
      '-c',
      'import importlib.util, sys\nprint(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))',
      ...modules,
    ],
    { encoding: 'utf8', env: {}, timeout: 10_000 },
  );
  if (probe.status !== 0) return [...modules];
  return probe.stdout.trim().split(/\s+/).filter(Boolean);
}

/**
 * Why sandboxed Python cannot run here, as a sentence naming what to install; undefined when
 * bwrap (unless isolation is off), the interpreter and the modules are all there.
 */
export function sandboxProblem(opts: {
  bwrap: string | undefined;
  needsBwrap: boolean;
  pythonPath: string;
  modules: readonly string[];
}): string | undefined {
  if (opts.needsBwrap && !opts.bwrap)
    return `bubblewrap (bwrap) is not installed or not on PATH: ${INSTALL_HINT}`;
  if (!existsSync(opts.pythonPath) || !isExecutable(opts.pythonPath))
    return `Python not found at ${opts.pythonPath}: ${INSTALL_HINT}`;
  const missing = missingPythonModules(opts.pythonPath, opts.modules);
  if (missing.length)
    return `${opts.pythonPath} lacks the Python module${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: ${INSTALL_HINT}`;
  return undefined;
}

/**
 * The error for a bwrap that started but could not build the sandbox. Lack of user namespaces
 * gets the ways out: enable them, a setuid bwrap, or (knowingly) no isolation.
 */
export function bwrapSetupError(stderr: string): string {
  const line =
    stderr
      .split('\n')
      .find((l) => l.startsWith('bwrap:'))
      ?.trim() ?? stderr.trim().slice(0, 300);
  const namespaces = /namespace|uid map|gid map|setting up uid|Operation not permitted|No permissions/i.test(
    line,
  );
  if (!namespaces) return `the sandbox could not start: ${line || 'bwrap failed without a message'}`;
  return (
    `the sandbox could not start (${line}): this machine does not let unprivileged users create user ` +
    'namespaces. Enable them (sysctl kernel.unprivileged_userns_clone=1 on Debian, ' +
    'sysctl user.max_user_namespaces=15000, or on Ubuntu ≥ 23.10 sysctl ' +
    'kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap), or install ' +
    'bwrap setuid root and point `bwrapPath` at it. Running without isolation is possible only ' +
    "on purpose: isolation 'unsafe-none' (APIARY_SANDBOX_ISOLATION=unsafe-none)."
  );
}

/**
 * The line a test suite that needs the sandbox prints when it cannot run here: which suite, why
 * (the missing package or namespace setting, with what to install or enable), and that CI has it.
 */
export function sandboxSkipNotice(suite: string, problem: string): string {
  return `${suite} SKIPPED, it did not run: ${problem}. (.ci/run installs these packages, so CI runs it.)`;
}
