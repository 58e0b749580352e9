/**
 * Redis connections of the distributed evals, on ioredis (BullMQ's own Redis client).
 *
 * BullMQ is handed client instances rather than connection options: its ESM build cannot load
 * ioredis by itself (it uses `require`). A handed instance counts as shared, so BullMQ never closes
 * it: whoever creates one disconnects it (the coordinator and the worker do, on close).
 */
import { Redis } from 'ioredis';
import { ApiaryError } from '../shared/index.js';

const URL_HINT = '(expected redis://host:port)';

/** Throws unless `url` is a `redis://` (or TLS `rediss://`) URL: ioredis reads any URL as host:port. */
function checkRedisUrl(url: string): void {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new Error(`not a Redis URL: ${url} ${URL_HINT}`);
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') throw new Error(`not a Redis URL: ${url} ${URL_HINT}`);
}

/**
 * A client for BullMQ's `connection` option; BullMQ requires `maxRetriesPerRequest: null` for workers.
 * BullMQ reports the client's errors through its own objects' `error` events while it uses the
 * client; the listener here keeps ioredis from printing each failed reconnect of a Redis that went
 * away (the coordinator's watch reports that once, as NETWORK).
 */
export function createBullConnection(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: null });
  client.on('error', () => {});
  return client;
}

/** Delay before the n-th reconnect of a connection that was up: 0.2 s, 0.4 s … capped at 2 s. */
const reconnectDelayMs = (attempt: number) => Math.min(attempt * 200, 2000);

/**
 * A connection for our own keys (announcements, notes), checked at once: a wrong or unreachable
 * URL fails here, naming it, instead of retrying forever as BullMQ's connections do. Once up,
 * the connection reconnects by itself; commands sent while it is down fail at once (no offline
 * queue), so a poll fails and the next one retries.
 */
export async function connectRedis(url: string, opts: { connectTimeoutMs?: number } = {}): Promise<Redis> {
  const fail = (error: unknown) =>
    new ApiaryError(
      'NETWORK',
      `cannot reach the Redis server at ${url}: ${error instanceof Error ? error.message || error.name : String(error)}`,
      { cause: error },
    );
  try {
    checkRedisUrl(url);
  } catch (error) {
    throw fail(error);
  }
  let up = false;
  let lastError: Error | undefined;
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: opts.connectTimeoutMs ?? 5000,
    // no retry before the first success: the check below must fail, not wait
    retryStrategy: (attempt) => (up ? reconnectDelayMs(attempt) : null),
  });
  // ioredis prints errors nobody listens to; the first one explains a failed check
  redis.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    await redis.connect();
    await redis.ping();
    up = true;
    return redis;
  } catch (error) {
    redis.disconnect();
    throw fail(lastError ?? error);
  }
}
