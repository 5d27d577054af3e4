import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { loadConfig } from '../config';
import { blockValue } from '../spend/admin';
import type { BlockKind } from '../spend/keys';
import { RedisSpendStore } from '../spend/store';
import type { CliIo } from './main';

const USAGE = `usage: npm run cli -- blocklist add|remove|list [--msisdn NUMBER | --identifier METER] [--json]
  blocked numbers and identifiers get no quote and no purchase on any channel (needs REDIS_URL)`;

/** `blocklist add|remove|list`: the operator's blocklist, as `/admin/blocklist` manages it. */
export async function blocklistCli(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        msisdn: { type: 'string' },
        identifier: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const action = positionals[0];
  if (!['add', 'remove', 'list'].includes(action ?? '') || positionals.length !== 1) {
    io.stderr(USAGE);
    return 2;
  }
  const config = loadConfig(io.env);
  if (!config.redisUrl) {
    io.stderr(
      'error: the blocklist lives in Redis: set REDIS_URL (and REDIS_PREFIX) as the gateway has them',
    );
    return 2;
  }
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    const store = new RedisSpendStore(redis, config.redisPrefix);
    if (action === 'list') {
      const lists = { msisdn: await store.blocked('msisdn'), identifier: await store.blocked('identifier') };
      if (values.json) io.stdout(JSON.stringify(lists, null, 2));
      else
        for (const [kind, list] of Object.entries(lists))
          io.stdout(`${kind}: ${list.length ? list.join(' ') : '(none)'}`);
      return 0;
    }
    const kind: BlockKind | null =
      values.msisdn !== undefined ? 'msisdn' : values.identifier !== undefined ? 'identifier' : null;
    if (!kind || (values.msisdn !== undefined && values.identifier !== undefined)) {
      io.stderr(`error: give one of --msisdn or --identifier\n${USAGE}`);
      return 2;
    }
    const checked = blockValue(
      kind,
      kind === 'msisdn' ? values.msisdn : values.identifier,
      config.defaultRegion,
    );
    if ('error' in checked) {
      io.stderr(`error: ${checked.error}`);
      return 2;
    }
    const changed =
      action === 'add' ? await store.block(kind, checked.value) : await store.unblock(kind, checked.value);
    io.stdout(
      `${kind} ${checked.value} ${action === 'add' ? (changed ? 'blocked' : 'was already blocked') : changed ? 'unblocked' : 'was not blocked'}`,
    );
    return 0;
  } finally {
    redis.disconnect();
  }
}
