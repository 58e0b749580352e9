/**
 * A throwaway `redis-server` for tests and perf scripts: a free loopback port, no persistence,
 * killed by `close()`. `redisServerMissing` is the skip reason when Debian's package is absent.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer, connect } from 'node:net';

const BINARY = 'redis-server';

/** Why Redis tests skip here, or null when `redis-server` is on PATH. */
export const redisServerMissing: string | null =
  spawnSync(BINARY, ['--version'], { stdio: 'ignore' }).status === 0
    ? null
    : 'redis-server is not installed (Debian package redis-server; .ci/run installs it)';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

export interface TestRedis {
  url: string;
  process: ChildProcess;
  close(): Promise<void>;
}

/**
 * `port`: start again where an earlier server (now closed) listened, for reconnect tests.
 * `args`: more configuration directives (`--user …`); `auth`: the `user:password` of the URL.
 */
export async function startRedisServer(
  opts: { port?: number; args?: string[]; auth?: string } = {},
): Promise<TestRedis> {
  const port = opts.port ?? (await freePort());
  const child = spawn(
    BINARY,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...(opts.args ?? [])],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100 && !(await canConnect(port)); i++) await new Promise((r) => setTimeout(r, 50));
  return {
    url: `redis://${opts.auth ? `${opts.auth}@` : ''}127.0.0.1:${port}`,
    process: child,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
