import { z } from 'zod';
import { DEFAULT_TOKEN_RETENTION_DAYS } from '../../records/retention';
import { MIN_TOKEN_KEY_LENGTH } from '../../records/sealing';
import { bool, digits, doc, int, optionalString, text } from '../variables';

/**
 * Where the gateway keeps things (Redis, the system of record, retention) and how long a
 * purchase may stay unresolved before it needs attention.
 * Each variable: its parse, its default and its line in docs/configuration.md (`doc`);
 * ../schema.ts puts the sections in order.
 */

export const stores = {
  REDIS_URL: doc(
    optionalString.pipe(
      z
        .string()
        .regex(/^rediss?:\/\/\S+$/, 'must look like redis://host:6379 (or rediss:// for TLS)')
        .optional(),
    ),
    'dialogues, SMS queue and BullMQ jobs in Redis (`redis://` or `rediss://`; pinged at start)',
    'unset: in memory',
  ),
  REDIS_PREFIX: doc(
    text('gw'),
    'key prefix of everything the gateway keeps in Redis (see src/redis/README.md)',
  ),
  // REDIS_URL names one node of a Redis Cluster; the others are discovered (src/redis/connection.ts).
  REDIS_CLUSTER: doc(
    bool(false),
    '`true`: `REDIS_URL` is one node of a Redis Cluster, the others are discovered',
  ),
  DATABASE_URL: doc(
    optionalString.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\/\S+$/, 'must look like postgres://user@host:5432/database')
        .optional(),
    ),
    'the system of record (purchases, agents, floats) on a PostgreSQL server; required in production',
    'unset: PGlite in process under `DATA_DIR`',
  ),
  DATABASE_SCHEMA: doc(
    optionalString.pipe(
      z
        .string()
        .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL name such as gateway')
        .optional(),
    ),
    'schema the tables live in on the server',
    '`public`',
  ),
  DATABASE_PREPARED_STATEMENTS: doc(
    bool(true),
    '`false`: every statement is parsed and planned anew instead of prepared once per connection; for a pooler that cannot keep prepared statements (PgBouncer in transaction mode before 1.21 or without `max_prepared_statements`)',
  ),
  DATA_DIR: doc(
    optionalString,
    'folder of the embedded database (`memory://`: in memory)',
    '`./data` (under `NODE_ENV=test`: `memory://`)',
  ),
  RECORD_RETENTION_DAYS: doc(
    int(1825, 1, 36500),
    'days a settled or resolved purchase is kept before it is deleted; unresolved ones are kept',
  ),
  PII_RETENTION_DAYS: doc(
    optionalString.pipe(digits(1, 36500).optional()),
    "days after which a settled purchase's token and numbers, and its payment's payer number, are masked in place",
    'unset: numbers kept as long as the record (tokens: `TOKEN_RETENTION_DAYS`)',
  ),
  TOKEN_RETENTION_DAYS: doc(
    int(DEFAULT_TOKEN_RETENTION_DAYS, 1, 36500),
    "days after which a settled purchase's token and the text of its SMS (every SMS sent by then) are masked in place: care can resend a token until then",
  ),
  TOKEN_ENCRYPTION_KEY: doc(
    optionalString.pipe(
      z.string().min(MIN_TOKEN_KEY_LENGTH, `must be at least ${MIN_TOKEN_KEY_LENGTH} characters`).optional(),
    ),
    'key (32+ random characters, kept outside the database) every token and SMS text is sealed with at rest (AES-256-GCM): a dump of the database hands out no token; required in production and with `DATABASE_URL`; every process (gateway, worker, CLI) needs the same one',
    'unset: a random key made at first start in `<DATA_DIR>/secrets/token.key` (in memory for `memory://`)',
  ),
  TOKEN_ENCRYPTION_KEY_PREVIOUS: doc(
    optionalString,
    'earlier keys (comma-separated) that still open what they sealed, after a rotation: keep each until the workers log that every token is sealed under the current key',
    'unset: none',
  ),
};

export const lifecycle = {
  RECONCILE_DEADLINE_MS: doc(
    int(30 * 60 * 1000, 1000, 7 * 24 * 3600 * 1000),
    'after this long unresolved, a purchase needs attention',
  ),
  RECONCILE_BASE_DELAY_MS: doc(int(5000, 10, 600000), 'first backoff step of reconciliation'),
  RECONCILE_RECHECK_MS: doc(
    int(24 * 3600 * 1000, 1000, 7 * 24 * 3600 * 1000),
    'how long a purchase failed because the service found no charge keeps being asked about (a late token turns it into a sale); a paid buyer is refunded only after it',
  ),
  PURCHASE_SWEEP_INTERVAL_MS: doc(
    int(60000, 0, 3600000),
    'how often workers look for purchases left without a job (they also do at start; `0`: only then)',
  ),
  DELAY_NOTICE_S: doc(
    int(120, 0, 86400),
    'a purchase still without an outcome this long after the Buy gets one SMS: taking longer than usual, do not pay again (sent by the sweep; `0`: never)',
  ),
};
