/**
 * A Redis connection for BullMQ and for our own few keys.
 *
 * Why this file exists: BullMQ 6 no longer bundles a Redis client (ioredis, node-redis and Bun's
 * are optional peers) and none is installed here. BullMQ wraps any object shaped like Bun's
 * `RedisClient` (`send(command, args)`, `connected`, `onconnect`/`onclose`, `duplicate()`) in its
 * own maintained adapter (`createBunRedisClient`), which does the reconnects, scripts, MULTI and
 * reply normalisation. So this is only that raw shape: one socket speaking RESP2, replies in
 * request order. With ioredis installed, `new Redis(url, { maxRetriesPerRequest: null })` can
 * replace `createRedisConnection` one for one.
 */
import { connect, type Socket } from 'node:net';
import { createBunRedisClient } from 'bullmq';

export type Reply = string | number | null | Error | Reply[];

interface Waiter {
  command: string;
  resolve: (r: Reply) => void;
  reject: (e: Error) => void;
}

/** Parses one RESP2 reply from `buf` at `at`; null when the buffer does not hold all of it yet. */
export function parseReply(buf: Buffer, at: number): { value: Reply; next: number } | null {
  const eol = buf.indexOf('\r\n', at);
  if (eol < 0) return null;
  const type = String.fromCharCode(buf[at]!);
  const line = buf.toString('utf8', at + 1, eol);
  const next = eol + 2;
  switch (type) {
    case '+':
      return { value: line, next };
    case '-':
      return { value: new Error(line), next };
    case ':':
      return { value: Number(line), next };
    case '$': {
      const n = Number(line);
      if (n < 0) return { value: null, next };
      if (buf.length < next + n + 2) return null;
      return { value: buf.toString('utf8', next, next + n), next: next + n + 2 };
    }
    case '*': {
      const n = Number(line);
      if (n < 0) return { value: null, next };
      const items: Reply[] = [];
      let pos = next;
      for (let i = 0; i < n; i++) {
        const item = parseReply(buf, pos);
        if (!item) return null;
        items.push(item.value);
        pos = item.next;
      }
      return { value: items, next: pos };
    }
    default:
      throw new Error(`unexpected RESP reply type "${type}"`);
  }
}

export function encodeCommand(command: string, args: readonly unknown[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length + 1}\r\n`)];
  for (const a of [command, ...args]) {
    const b = Buffer.isBuffer(a) ? a : Buffer.from(a === undefined || a === null ? '' : String(a));
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** `redis://[user:password@]host:port[/db]` → what a connection needs. */
export function parseRedisUrl(url: string): {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
} {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`not a Redis URL: ${url} (expected redis://host:port)`);
  }
  if (u.protocol !== 'redis:') throw new Error(`not a Redis URL: ${url} (expected redis://host:port)`);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    db: Number.isInteger(db) ? db : 0,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
  };
}

/** One Redis connection in the shape of Bun's `RedisClient`, as BullMQ's adapter expects it. */
export class RedisConnection {
  connected = false;
  onconnect: (() => void) | null = null;
  onclose: ((error?: Error) => void) | null = null;
  onerror: ((error: Error) => void) | null = null;
  private socket: Socket | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly waiting: Waiter[] = [];
  private connecting: Promise<void> | null = null;
  private closed = false;
  /** close() was called: the socket's end is ours, not news for `onclose`. */
  private closedByUs = false;

  constructor(readonly url: string) {}

  connect(): Promise<void> {
    if (this.connected) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('Connection closed'));
    this.connecting ??= new Promise<void>((resolve, reject) => {
      const { host, port, db, username, password } = parseRedisUrl(this.url);
      const socket = connect({ host, port });
      socket.setNoDelay(true);
      this.socket = socket;
      let opened = false;
      socket.on('data', (chunk) => this.receive(chunk));
      socket.once('connect', () => {
        opened = true;
        this.connected = true;
        const setup: Array<Promise<unknown>> = [];
        if (password) setup.push(this.send('AUTH', username ? [username, password] : [password]));
        if (db) setup.push(this.send('SELECT', [db]));
        Promise.all(setup).then(() => {
          this.onconnect?.();
          resolve();
        }, reject);
      });
      socket.on('error', (error) => {
        if (!opened) reject(error);
        this.onerror?.(error);
      });
      socket.once('close', () => {
        const wasOpen = this.connected;
        this.connected = false;
        this.connecting = null;
        this.closed = true;
        for (const w of this.waiting.splice(0))
          w.reject(new Error(`Connection closed (${w.command} had no reply)`));
        const error = new Error('Connection closed');
        if ((wasOpen || opened) && !this.closedByUs) this.onclose?.(error);
      });
    });
    return this.connecting;
  }

  /** Sends one command; replies come back in order. An error reply rejects (inside EXEC it is an element). */
  async send(command: string, args: readonly unknown[]): Promise<unknown> {
    if (!this.connected) await this.connect();
    const socket = this.socket;
    if (!socket || !this.connected) throw new Error('Connection closed');
    return new Promise<Reply>((resolve, reject) => {
      this.waiting.push({ command, resolve, reject });
      socket.write(encodeCommand(command, args));
    });
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    let at = 0;
    for (;;) {
      const parsed = at < this.buffer.length ? parseReply(this.buffer, at) : null;
      if (!parsed) break;
      at = parsed.next;
      const w = this.waiting.shift();
      if (!w) continue;
      if (parsed.value instanceof Error) w.reject(parsed.value);
      else w.resolve(parsed.value);
    }
    this.buffer = at >= this.buffer.length ? Buffer.alloc(0) : this.buffer.subarray(at);
  }

  close(): void {
    this.closed = true;
    this.closedByUs = true;
    this.socket?.destroy();
  }

  /** A new connection to the same server (BullMQ keeps blocking commands on their own connection). */
  async duplicate(): Promise<RedisConnection> {
    return new RedisConnection(this.url);
  }
}

/** A client for BullMQ's `connection` option: our raw connection in BullMQ's own adapter. */
export const createBullConnection = (url: string) => createBunRedisClient(new RedisConnection(url) as never);

/** A raw connection for our own keys (announcements, notes). */
export const createRedisConnection = (url: string) => new RedisConnection(url);
