import { describe, expect, it } from 'vitest';
import { redisServerMissing, startRedisServer } from './__fixtures__/redis-server.js';
import { connectRedis } from './redis-connection.js';

describe('connectRedis: fails fast before the first connection', () => {
  it('names the URL when nothing listens, without retrying', async () => {
    const started = Date.now();
    const error = await connectRedis('redis://127.0.0.1:1').catch((e) => e);
    expect(error).toMatchObject({
      code: 'NETWORK',
      message: expect.stringContaining('cannot reach the Redis server at redis://127.0.0.1:1: '),
    });
    // the refused connection's own error, not ioredis's generic "Connection is closed."
    expect(error.message).toContain('ECONNREFUSED');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a URL that is not redis:// or rediss://', async () => {
    await expect(connectRedis('http://127.0.0.1:6379')).rejects.toMatchObject({
      code: 'NETWORK',
      message:
        'cannot reach the Redis server at http://127.0.0.1:6379: not a Redis URL: http://127.0.0.1:6379 (expected redis://host:port)',
    });
    await expect(connectRedis('not a url')).rejects.toMatchObject({
      message: expect.stringContaining('not a Redis URL: not a url'),
    });
  });
});

describe.skipIf(redisServerMissing !== null)(
  `connectRedis on a real server (${redisServerMissing ?? 'redis-server'})`,
  { timeout: 15_000 },
  () => {
    it('once up, fails commands at once while the server is gone and reconnects when it is back', async () => {
      let server = await startRedisServer();
      const port = Number(new URL(server.url).port);
      const redis = await connectRedis(server.url);
      try {
        await redis.hset('apiary:test', 'a', '1');
        expect(await redis.hgetall('apiary:test')).toEqual({ a: '1' });
        await server.close();
        // no offline queue: the command is refused, not held until Redis comes back
        await expect(redis.ping()).rejects.toThrow();
        server = await startRedisServer({ port });
        let reply: string | null = null;
        for (let i = 0; i < 60 && reply === null; i++) {
          reply = await redis.ping().catch(() => null);
          if (reply === null) await new Promise((r) => setTimeout(r, 100));
        }
        expect(reply).toBe('PONG');
        // a new server without persistence: the key is gone, the connection is fine
        expect(await redis.hgetall('apiary:test')).toEqual({});
      } finally {
        redis.disconnect();
        await server.close();
      }
    });
  },
);
