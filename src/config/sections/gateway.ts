import { z } from 'zod';
import { LOG_FORMATS, LOG_LEVELS } from '../../observability/logger';
import { SOURCE_CHANNELS } from '../../vas/settings';
import { bool, digits, doc, int, optionalString, text } from '../variables';

/**
 * The gateway's own settings: its process (server), the purchase service it buys from, and
 * what production refuses unless allowed in so many words (checked by ../production.ts).
 * Each variable: its parse, its default and its line in docs/configuration.md (`doc`);
 * ../schema.ts puts the sections in order.
 */

export const server = {
  NODE_ENV: doc(
    optionalString,
    '`production` in deployments: refuses the embedded sandbox, in-memory stores, the SMS outbox and open callbacks unless allowed (see docs/operations.md, Production); `test` lowers the default `LOG_LEVEL` to `error`',
  ),
  PORT: doc(int(3000, 0, 65535), 'gateway HTTP port'),
  HOST: doc(
    optionalString,
    'address the gateway listens on',
    '`127.0.0.1` in the embedded mode, else `0.0.0.0`',
  ),
  LOG_LEVEL: doc(
    z.enum(LOG_LEVELS).optional(),
    `winston level (${LOG_LEVELS.join(', ')}); logs are JSON lines with a request id, MSISDNs and tokens masked`,
    '`info` (the CLI: `error`; under `NODE_ENV=test`: `error`)',
  ),
  LOG_FORMAT: doc(
    z.enum(LOG_FORMATS).optional(),
    '`json`: an object a line, for a collector; `pretty`: time, level, component, message, fields, for a person (masked alike)',
    '`pretty` for `npm start` on a terminal, else `json`',
  ),
  TZ: doc(
    text('Africa/Gaborone'),
    "IANA time zone of dates shown to subscribers, of the local day limits count in, and of the books' days (reports, the console's today)",
  ),
  DEFAULT_REGION: doc(
    z
      .string()
      .regex(/^[A-Z]{2}$/, 'must be an ISO 3166 region such as BW')
      .optional()
      .default('BW'),
    'region of phone numbers written without a country code',
  ),
  DEFAULT_LANGUAGE: doc(z.string().optional().default('en'), 'language of a caller with no saved preference'),
  GATEWAY_WORKERS: doc(
    bool(true),
    'run the purchase and SMS workers in the gateway process; `false` leaves them to `npm run worker` (Redis only)',
  ),
  WORKER_HEALTH_PORT: doc(
    int(3001, 0, 65535),
    "port of the worker's `GET /healthz`, `/livez`, `/readyz` and `/metrics` (`npm run worker`; `0`: any free port)",
  ),
};

export const purchaseService = {
  PURCHASE_API_BASE_URL: doc(
    optionalString.pipe(z.url().optional()),
    'base URL of the purchase service; unset: the embedded sandbox (`npm run worker` uses the one at `SANDBOX_HOST`:`SANDBOX_PORT`)',
    'unset: embedded sandbox',
  ),
  PURCHASE_API_INTERFACE: doc(
    z.enum(['v1', 'legacy']).optional().default('v1'),
    '`v1` (`/public/v1/`, all products) or `legacy` (`/api/topup/`, electricity only)',
  ),
  PURCHASE_API_CLIENT_ID: doc(optionalString, 'OAuth client id', "the sandbox's; required with a base URL"),
  PURCHASE_API_CLIENT_SECRET: doc(
    optionalString,
    'OAuth client secret',
    "the sandbox's; required with a base URL",
  ),
  PURCHASE_API_USERNAME: doc(optionalString, 'integration user', "the sandbox's; required with a base URL"),
  PURCHASE_API_PASSWORD: doc(
    optionalString,
    "integration user's password",
    "the sandbox's; required with a base URL",
  ),
  PURCHASE_API_ORG_CODE: doc(optionalString, 'organisation code', '`SANDBOX`; required with a base URL'),
  PURCHASE_API_TIMEOUT_MS: doc(
    int(6000, 100, 60000),
    'reads and validate; must be shorter than `USSD_HOP_BUDGET_MS` (a quote fits in a hop)',
  ),
  PURCHASE_API_CONFIRM_TIMEOUT_MS: doc(
    int(30000, 1000, 180000),
    'confirm and retry (not shorter than `PURCHASE_API_TIMEOUT_MS`); a confirm that times out is reconciled, never re-sent',
  ),
  DEBIT_ACCOUNT_ID: doc(
    optionalString.pipe(digits(1, Number.MAX_SAFE_INTEGER).optional()),
    'account debited for purchases',
    'the first CURRENT account',
  ),
  MANAGED_RETRY_ACCOUNT_IDS: doc(
    optionalString.pipe(
      z
        .string()
        .regex(/^\s*[0-9]+\s*(,\s*[0-9]+\s*)*$/, 'must be account ids separated by commas, e.g. 1004,1007')
        .transform((v) => v.split(',').map((id) => Number(id.trim())))
        .optional(),
    ),
    "debit accounts the service runs in managed-retry mode (it retries a failed transaction itself, then refunds the account): a refusal of their confirm is not final until `MANAGED_RETRY_WINDOW_MS` has passed and `retry` says so; never refunded, and an agent's float never released, before",
    'none: every account self-managed, as the service defaults',
  ),
  MANAGED_RETRY_WINDOW_MS: doc(
    int(30 * 60_000, 1000, 24 * 3600_000),
    "how long after a confirm a managed-retry account's service keeps retrying it (the service's 5 attempts over 30 minutes)",
  ),
  SMS_SOURCE_CHANNEL: doc(
    z.enum(SOURCE_CHANNELS).optional().default('USSD'),
    `\`source_channel\` of SMS purchases on v1, which has no \`SMS_MO\`: ${SOURCE_CHANNELS.map((c) => `\`${c}\``).join(', ')}`,
  ),
};

export const production = {
  // Production refuses these unless allowed in so many words (src/config/production.ts).
  EMBEDDED_SANDBOX: doc(bool(false), 'with `NODE_ENV=production`: run the embedded sandbox anyway'),
  ALLOW_IN_MEMORY: doc(
    bool(false),
    'with `NODE_ENV=production`: keep dialogues and jobs in memory (no `REDIS_URL`) anyway',
  ),
  ALLOW_OUTBOX_SMS: doc(
    bool(false),
    'with `NODE_ENV=production`: keep the SMS outbox (no SMS is delivered) anyway',
  ),
  ALLOW_OPEN_CALLBACKS: doc(
    bool(false),
    'with `NODE_ENV=production` and a real service: start with callback routes that have neither a secret nor an allow-list (only behind a private link)',
  ),
};
