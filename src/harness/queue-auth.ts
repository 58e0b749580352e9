/**
 * Authentication of what crosses Redis in a distributed eval. Anyone who can reach the Redis
 * server can write to it, so the coordinator and its workers sign what they write (announcements,
 * jobs, results, notes) with HMAC-SHA256 under a secret they share, and ignore what does not verify.
 *
 * The MAC covers a domain tag, the kind of message and the exact text that is sent: a payload is
 * carried as a JSON text inside its envelope and parsed only once its MAC holds, so both sides
 * hash the same bytes (no re-serialisation that could differ) and unauthenticated data is never parsed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { ApiaryError } from '../shared/index.js';

/** The environment variable holding the shared secret. */
const QUEUE_SECRET_ENV = 'APIARY_QUEUE_SECRET';
/** Shortest secret accepted (characters): a short one could be guessed offline from one signed message. */
const MIN_QUEUE_SECRET_LENGTH = 16;
/** Largest secret file read (bytes): a secret is one line, not a data file. */
const MAX_QUEUE_SECRET_FILE_BYTES = 4096;

export type MessageKind = 'announcement' | 'job' | 'result' | 'note';

/** Signs and checks messages; `insecure` (no secret, `--insecure-no-auth`) signs nothing and accepts anything. */
export interface QueueAuth {
  readonly insecure: boolean;
  /** The MAC of `text` as `kind` (hex), or null without a secret. */
  sign(kind: MessageKind, text: string): string | null;
  /** Whether `mac` is the MAC of `text` as `kind`; always true without a secret. */
  verify(kind: MessageKind, text: string, mac: string | null | undefined): boolean;
}

const DOMAIN = 'apiary-queue/1';

export function createQueueAuth(secret: string): QueueAuth {
  if (secret.length < MIN_QUEUE_SECRET_LENGTH)
    throw new ApiaryError(
      'USAGE',
      `the queue secret is ${secret.length} characters long; it needs at least ${MIN_QUEUE_SECRET_LENGTH} (e.g. \`openssl rand -hex 32\`)`,
    );
  const key = Buffer.from(secret, 'utf8');
  const mac = (kind: MessageKind, text: string) =>
    createHmac('sha256', key).update(`${DOMAIN}\n${kind}\n`).update(text, 'utf8').digest();
  return {
    insecure: false,
    sign: (kind, text) => mac(kind, text).toString('hex'),
    verify(kind, text, given) {
      if (typeof given !== 'string' || !/^[0-9a-f]{64}$/.test(given)) return false;
      return timingSafeEqual(mac(kind, text), Buffer.from(given, 'hex'));
    },
  };
}

/** No authentication: for a Redis only trusted processes can reach (`--insecure-no-auth`). */
export const INSECURE_QUEUE_AUTH: QueueAuth = {
  insecure: true,
  sign: () => null,
  verify: () => true,
};

/**
 * The auth of `apiary eval --queue` and `apiary worker`: the secret from `--queue-secret-file`,
 * else from APIARY_QUEUE_SECRET; neither is a USAGE error unless `insecure` was asked for.
 */
export function resolveQueueAuth(opts: {
  secretFile?: string | undefined;
  insecure?: boolean | undefined;
  env?: NodeJS.ProcessEnv;
}): QueueAuth {
  const env = opts.env ?? process.env;
  if (opts.secretFile !== undefined) {
    if (opts.insecure)
      throw new ApiaryError('USAGE', '--queue-secret-file and --insecure-no-auth exclude each other');
    return createQueueAuth(readSecretFile(opts.secretFile));
  }
  const fromEnv = env[QUEUE_SECRET_ENV];
  if (fromEnv) {
    if (opts.insecure)
      throw new ApiaryError(
        'USAGE',
        `${QUEUE_SECRET_ENV} is set and --insecure-no-auth was given: unset one of them`,
      );
    return createQueueAuth(fromEnv);
  }
  if (opts.insecure) return INSECURE_QUEUE_AUTH;
  throw new ApiaryError(
    'USAGE',
    `distributed evals need a shared secret: set ${QUEUE_SECRET_ENV} (the same on the coordinator and every worker) or pass --queue-secret-file FILE; --insecure-no-auth runs without one (anyone who reaches Redis can then forge runs and results)`,
  );
}

function readSecretFile(file: string): string {
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_QUEUE_SECRET_FILE_BYTES)
      throw new ApiaryError(
        'USAGE',
        `--queue-secret-file ${file}: ${size} bytes, over the ${MAX_QUEUE_SECRET_FILE_BYTES}-byte limit of a secret file`,
      );
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ApiaryError) throw error;
    throw new ApiaryError(
      'USAGE',
      `--queue-secret-file ${file}: cannot read it (${(error as Error).message})`,
      {
        cause: error,
      },
    );
  }
  // one line, as `openssl rand -hex 32 > FILE` writes it
  return text.replace(/\r?\n$/, '');
}
