import { describe, expect, it } from 'vitest';
import { encodeCommand, parseRedisUrl, parseReply } from './redis-connection.js';

const b = (s: string) => Buffer.from(s, 'utf8');

describe('RESP2 replies and commands', () => {
  it('parses each reply type, and says "not yet" for a reply cut anywhere', () => {
    const text = '+OK\r\n:42\r\n$4\r\nhé!\r\n$-1\r\n*3\r\n:1\r\n-ERR x\r\n*1\r\n$0\r\n\r\n';
    const buf = b(text);
    const values: unknown[] = [];
    let at = 0;
    while (at < buf.length) {
      const r = parseReply(buf, at)!;
      values.push(r.value);
      at = r.next;
    }
    // an error inside an array (an EXEC reply) is an element, not a failure of the whole reply
    expect(values).toEqual(['OK', 42, 'hé!', null, [1, new Error('ERR x'), ['']]]);
    expect((values[4] as unknown[])[1]).toBeInstanceOf(Error);
    // a cut inside any reply leaves it for the next chunk
    const last = b('*3\r\n:1\r\n-ERR x\r\n*1\r\n$0\r\n\r\n');
    for (let cut = 1; cut < last.length; cut++) expect(parseReply(last.subarray(0, cut), 0)).toBeNull();
  });

  it('reads bulk strings by byte length (UTF-8)', () => {
    const bulk = b('$4\r\nhé!\r\n'); // h (1) é (2) ! (1) = 4 bytes
    expect(parseReply(bulk, 0)).toEqual({ value: 'hé!', next: bulk.length });
  });

  it('encodes commands as arrays of bulk strings, Buffers as they are', () => {
    expect(encodeCommand('HSET', ['k', 'é', 7]).toString('utf8')).toBe(
      '*4\r\n$4\r\nHSET\r\n$1\r\nk\r\n$2\r\né\r\n$1\r\n7\r\n',
    );
    expect(encodeCommand('SET', [Buffer.from([0, 255])])).toEqual(
      Buffer.concat([b('*2\r\n$3\r\nSET\r\n$2\r\n'), Buffer.from([0, 255]), b('\r\n')]),
    );
  });

  it('reads host, port, db and credentials from a redis:// URL', () => {
    expect(parseRedisUrl('redis://10.0.0.5:6380/2')).toEqual({ host: '10.0.0.5', port: 6380, db: 2 });
    expect(parseRedisUrl('redis://u%40x:p%3A@h')).toEqual({
      host: 'h',
      port: 6379,
      db: 0,
      username: 'u@x',
      password: 'p:',
    });
    expect(() => parseRedisUrl('http://h:6379')).toThrow('not a Redis URL: http://h:6379');
  });
});
