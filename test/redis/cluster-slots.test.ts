import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { hashSlot } from '../../src/redis/keys';
import { numKeysOf } from '../../src/redis/scripts';
import { OwnRedisServer } from '../support/redis-server';
import { runEveryScript } from '../support/every-script';

/**
 * Every multi-key Lua script must touch keys of one Redis Cluster slot. This runs every store
 * operation that calls a script against the test Redis, watches the EVAL/EVALSHA commands
 * that reach it (MONITOR), and checks each call's keys; every multi-key script file under
 * src/ must have been seen.
 */

const SRC = path.resolve(__dirname, '../../src');

function luaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return luaFiles(full);
    return entry.name.endsWith('.lua') ? [full] : [];
  });
}

const multiKeyScripts = new Map(
  luaFiles(SRC)
    .filter((file) => numKeysOf(path.basename(file, '.lua')) > 1)
    .map((file) => [
      createHash('sha1').update(readFileSync(file, 'utf8')).digest('hex'),
      path.relative(SRC, file),
    ]),
);

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' };

/** MONITOR prints arguments escaped (`\n`, `\"`, `\xHH`): the script text as sent. */
function unescapeMonitor(text: string): string {
  return text.replace(/\\(x[0-9a-f]{2}|.)/g, (_all, code: string) =>
    code.length === 3 ? String.fromCharCode(parseInt(code.slice(1), 16)) : (ESCAPES[code] ?? code),
  );
}

interface ScriptCall {
  script: string;
  keys: string[];
}

/**
 * A redis-server of this test's own: MONITOR sees every client of a server, and on the shared
 * one the other suites' traffic (BullMQ's) would flood it.
 */
const server = new OwnRedisServer();
let test: { redis: Redis; prefix: string };
let monitor: Redis;
const calls: ScriptCall[] = [];

beforeAll(async () => {
  await server.start();
  test = { redis: new Redis(server.url), prefix: 'slots' };
  // monitor() opens a connection of its own (a duplicate first would be one more, never closed).
  monitor = await test.redis.monitor();
  monitor.on('monitor', (_time: string, args: string[]) => {
    const [command, body, numKeys, ...rest] = args;
    const lower = command.toLowerCase();
    if (lower !== 'eval' && lower !== 'evalsha') return;
    const sha = lower === 'eval' ? createHash('sha1').update(unescapeMonitor(body)).digest('hex') : body;
    const script = multiKeyScripts.get(sha);
    const keys = rest.slice(0, Number(numKeys));
    if (script && keys.every((key) => key.startsWith(test.prefix))) calls.push({ script, keys });
  });
});

afterAll(async () => {
  monitor.disconnect();
  test.redis.disconnect();
  await server.destroy();
});

describe('multi-key scripts and Redis Cluster', () => {
  it('every multi-key script touches keys of one hash slot', async () => {
    await runEveryScript(test.redis, test.prefix);
    // MONITOR reports a command after it ran: wait until every script was seen.
    const expected = new Set(multiKeyScripts.values());
    for (let i = 0; i < 100 && new Set(calls.map((c) => c.script)).size < expected.size; i += 1)
      await test.redis.ping();
    expect(new Set(calls.map((c) => c.script))).toEqual(expected);
    for (const call of calls) {
      const slots = new Set(call.keys.map(hashSlot));
      expect({ script: call.script, keys: call.keys, slots: slots.size }).toEqual({
        script: call.script,
        keys: call.keys,
        slots: 1,
      });
    }
  });
});
