/**
 * Operator CLI: check credentials and connectivity to the purchase service without the
 * gateway, and make single validate/confirm/retry calls (`npm run cli -- <command>`).
 * With no PURCHASE_API_BASE_URL it starts an in-process sandbox and says so on stderr.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import winston from 'winston';
import { ConfigError, loadConfig, type Config } from '../config';
import { debitAccountLookup } from '../gateway/dialogue-services';
import { startMoneyPath } from '../gateway/money-path';
import { logger, setLogLevel } from '../observability/logger';
import { blocklistCli } from './blocklist';
import { parseLostPurchases, recoverPurchase, type LostPurchase, type Recovery } from '../purchases/recover';
import {
  AuthenticationError,
  MalformedResponseError,
  NotFoundError,
  PermissionError,
  PurchaseServiceError,
  TransportError,
  createPurchaseService,
  formatMoney,
  identifierHint,
  outcomeOf,
  parseDecimalAmount,
  tokensForDisplay,
  type Account,
  type ProductType,
  type PurchaseRequest,
  type PurchaseService,
  type Transaction,
} from '../vas';

export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

/** Exit codes: 0 ok, 1 refused or failed, 2 usage or configuration, 3 confirm outcome unknown. */
export const EXIT = { ok: 0, failed: 1, usage: 2, outcomeUnknown: 3 } as const;

const USAGE = `usage: npm run cli -- <command> [flags]
commands:
  check                      log in; list products, providers, identifier rules, accounts
  validate                   quote a purchase (no state change)
  confirm                    buy (debits the account; never re-sent by this tool)
  retry                      reconcile an earlier confirm by --identifier and --ref
  blocklist add|remove|list  numbers (--msisdn) and identifiers (--identifier) that may not buy (needs REDIS_URL)
  recover                    re-derive purchases lost from Redis (needs REDIS_URL): --ref --identifier
                             --product --phone, or --file lost.csv (ref,identifier,product,phone[,language]);
                             a successful one is recorded and its token SMS queued; --dry-run writes nothing
  agent <command>            field agents: add, list, show, disable, enable, reset-pin, credit,
                             adjust, statement (npm run cli -- agent help)
  purchases <command>        customer care: find, show, resolve, reconcile, audit (needs REDIS_URL;
                             npm run cli -- purchases help)
flags:
  --product ELECTRICITY|AIRTIME|WATER (default ELECTRICITY)   --provider CODE
  --identifier METER_OR_NUMBER   --amount 100.00   --phone 2677XXXXXXX
  --account ID               default: DEBIT_ACCOUNT_ID, else the first CURRENT account (as the gateway)
  --ref EXTERNAL_REFERENCE   confirm refuses one the service already knows (asked with retry first)
  --language en-BW   --json
  --yes                      confirm against a real service (it debits real money)
no PURCHASE_API_BASE_URL: the sandbox of a running npm start / npm run sandbox (SANDBOX_PORT), else one of its own`;

const PRODUCT_TYPES: readonly ProductType[] = ['ELECTRICITY', 'AIRTIME', 'WATER'];
const SANDBOX_PHONE = '26771234567';

class UsageError extends Error {}

interface Flags {
  product?: string;
  provider?: string;
  identifier?: string;
  amount?: string;
  phone?: string;
  account?: string;
  ref?: string;
  language?: string;
  file?: string;
  json: boolean;
  help: boolean;
  yes: boolean;
  'dry-run': boolean;
}

function parseFlags(argv: string[]): { command: string | undefined; flags: Flags } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      product: { type: 'string' },
      provider: { type: 'string' },
      identifier: { type: 'string' },
      amount: { type: 'string' },
      phone: { type: 'string' },
      account: { type: 'string' },
      ref: { type: 'string' },
      language: { type: 'string' },
      file: { type: 'string' },
      json: { type: 'boolean', default: false },
      yes: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (positionals.length > 1) throw new UsageError(`one command at a time, got: ${positionals.join(' ')}`);
  return { command: positionals[0], flags: values as Flags };
}

interface Session {
  config: Config;
  baseUrl: string;
  service: PurchaseService;
  embedded: boolean;
  close(): Promise<void>;
}

async function openSession(io: CliIo): Promise<Session> {
  const config = loadConfig(io.env);
  setLogLevel(config.logLevel ?? 'error'); // quiet unless asked: stdout is the command's output
  if (!config.embeddedSandbox) {
    const baseUrl = config.purchaseApi.baseUrl as string;
    return {
      config,
      baseUrl,
      embedded: false,
      service: createPurchaseService({ ...config.purchaseApi, baseUrl }),
      close: async () => undefined,
    };
  }
  const running = await runningSandbox(config);
  if (running) {
    io.stderr(`no PURCHASE_API_BASE_URL: using the sandbox running at ${running} (test data, no real money)`);
    return {
      config,
      baseUrl: running,
      embedded: true,
      service: createPurchaseService({ ...config.purchaseApi, baseUrl: running }),
      close: async () => undefined,
    };
  }
  const { startSandbox } = await import('../sandbox');
  const sandbox = await startSandbox({ ...config.sandbox, port: 0, silent: true });
  io.stderr(
    `no PURCHASE_API_BASE_URL: using an in-process sandbox at ${sandbox.url} (test data, no real money; ` +
      'it stops with this command: run npm start or npm run sandbox to keep purchases for a later retry)',
  );
  return {
    config,
    baseUrl: sandbox.url,
    embedded: true,
    service: createPurchaseService({ ...config.purchaseApi, baseUrl: sandbox.url }),
    close: () => sandbox.close(),
  };
}

/**
 * The sandbox of a running `npm start` or `npm run sandbox` (at SANDBOX_HOST:SANDBOX_PORT), so
 * that one command's purchase is there for the next (`confirm`, then `retry`); null when none
 * answers like one. SANDBOX_PORT=0 never looks.
 */
async function runningSandbox(config: Config): Promise<string | null> {
  const settings = config.sandbox;
  if (!settings || settings.port === 0) return null;
  const host = settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host;
  const url = `http://${host}:${settings.port}`;
  try {
    const res = await fetch(`${url}/sandbox/scenarios`, { signal: AbortSignal.timeout(1000) });
    return res.ok && Array.isArray(await res.json()) ? url : null;
  } catch {
    return null;
  }
}

const ctx = () => ({ requestId: `cli-${randomBytes(6).toString('hex')}` });

function productType(flags: Flags): ProductType {
  const value = (flags.product ?? 'ELECTRICITY').toUpperCase();
  if (!PRODUCT_TYPES.includes(value as ProductType))
    throw new UsageError(`--product must be one of ${PRODUCT_TYPES.join(', ')}`);
  return value as ProductType;
}

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${flag} is required`);
  return value.trim();
}

async function buildPurchase(session: Session, flags: Flags, command: 'validate' | 'confirm', io: CliIo) {
  const type = productType(flags);
  const identifier = need(flags.identifier, 'identifier');
  const amount = parseDecimalAmount(need(flags.amount, 'amount'));
  if (!amount.ok)
    throw new UsageError(`--amount must be a positive amount with at most two decimals (${amount.reason})`);

  let providerCode = flags.provider;
  if (!providerCode) {
    const product = (await session.service.listProducts(ctx())).find((p) => p.productType === type);
    if (!product) throw new UsageError(`the organisation does not sell ${type}`);
    if (product.providers.length !== 1)
      throw new UsageError(
        `--provider is required: one of ${product.providers.map((p) => p.code).join(', ')}`,
      );
    providerCode = product.providers[0].code;
  }

  const account = await debitedAccount(session, flags, io);

  let phone = flags.phone ?? (type === 'AIRTIME' ? identifier : undefined);
  if (!phone && session.embedded) phone = SANDBOX_PHONE;
  phone = need(phone, 'phone').replace(/^\+/, '');

  const externalReference =
    flags.ref ?? (command === 'confirm' ? `cli-${Date.now()}-${randomBytes(2).toString('hex')}` : undefined);
  const request: PurchaseRequest = {
    sourceChannel: 'USSD',
    language: flags.language ?? 'en-BW',
    productType: type,
    providerCode,
    debitedAccountId: account.id,
    beneficiaryPhoneNumber: phone,
    subscriberIdentifier: identifier,
    amount: { currency: account.currency, minor: amount.minor },
    externalReference,
  };
  return request;
}

/**
 * `--account`, else the account the gateway debits: DEBIT_ACCOUNT_ID, else the first CURRENT
 * account the service lists (the gateway's own lookup).
 */
async function debitedAccount(session: Session, flags: Flags, io: CliIo): Promise<Account> {
  if (flags.account !== undefined) {
    const accounts = await session.service.listAccounts(ctx());
    const account = accounts.find((a) => String(a.id) === flags.account);
    if (!account)
      throw new UsageError(
        `account ${flags.account} is not one of yours: ${accounts.map((a) => a.id).join(', ')}`,
      );
    return account;
  }
  const account = await debitAccountLookup(session.service, session.config.debitAccountId)();
  io.stderr(
    `using account ${account.id} (${account.name}) as the gateway does` +
      `${session.config.debitAccountId ? ' (DEBIT_ACCOUNT_ID)' : ' (its first CURRENT account)'}; pass --account to choose`,
  );
  return account;
}

/**
 * Before a confirm with an operator's `--ref`: ask `retry` whether the service already knows
 * it (for this identifier). Confirm is not idempotent, so a known reference would buy twice:
 * the refusal (a line to print) unless the service answers `transaction_not_found`.
 */
async function knownReference(
  session: Session,
  request: PurchaseRequest,
  flags: Flags,
  io: CliIo,
): Promise<string | null> {
  const ref = request.externalReference as string;
  const lookup = `npm run cli -- retry --product ${request.productType} --identifier ${request.subscriberIdentifier} --ref ${ref}`;
  try {
    const original = await session.service.retry(
      {
        sourceChannel: request.sourceChannel,
        language: request.language,
        productType: request.productType,
        subscriberIdentifier: request.subscriberIdentifier,
        externalReference: ref,
      },
      ctx(),
    );
    if (!flags.json) describeTransaction(original, 'already known', ref).forEach((line) => io.stdout(line));
    return `--ref ${ref} was already used for ${request.subscriberIdentifier} (${original.status}): not confirming again; use a new --ref (or leave it out)`;
  } catch (error) {
    if (error instanceof NotFoundError && error.code === 'transaction_not_found') return null;
    if (error instanceof PurchaseServiceError && error.code === 'retries_disabled')
      return `cannot check whether --ref ${ref} was used (the account is in managed-retry mode): not confirming; use a new --ref (or leave it out)`;
    if (error instanceof PurchaseServiceError && outcomeOf(error) === 'rejected')
      return `--ref ${ref} was already used for ${request.subscriberIdentifier} (${error.code}: ${error.message}): not confirming again; see ${lookup}`;
    return `cannot check whether --ref ${ref} was used (${explain(error, session.baseUrl)}): nothing was confirmed`;
  }
}

function describeTransaction(t: Transaction, title: string, externalReference?: string): string[] {
  const lines = [`${title}: ${t.status}`];
  lines.push(`  product:      ${t.productType}${t.providerCode ? ` / ${t.providerCode}` : ''}`);
  lines.push(
    `  identifier:   ${t.subscriberIdentifier}${t.subscriberDetails ? ` (${t.subscriberDetails})` : ''}`,
  );
  lines.push(
    `  total:        ${formatMoney(t.total)}  (net ${formatMoney(t.net)}, charge ${formatMoney(t.charge)})`,
  );
  if (t.units) lines.push(`  units:        ${t.units}`);
  if (t.reference) lines.push(`  reference:    ${t.reference}`);
  if (externalReference) lines.push(`  external ref: ${externalReference}`);
  if (t.providerTransactionId) lines.push(`  provider id:  ${t.providerTransactionId}`);
  lines.push(`  request id:   ${t.requestId ?? '-'}`);
  if (t.tokens.length > 0) {
    lines.push(t.tokens.length > 1 ? 'tokens (enter in this order):' : 'token:');
    for (const token of tokensForDisplay(t.tokens)) {
      lines.push(`  ${token.description ? `${token.description}: ` : ''}${token.value}`);
    }
  }
  return lines;
}

async function check(session: Session, flags: Flags, io: CliIo): Promise<number> {
  const products = await session.service.listProducts(ctx());
  const accounts = await session.service.listAccounts(ctx());
  if (flags.json) {
    io.stdout(JSON.stringify({ baseUrl: session.baseUrl, products, accounts }, null, 2));
    return EXIT.ok;
  }
  io.stdout(`logged in to ${session.baseUrl} (${session.config.purchaseApi.interface} interface)`);
  io.stdout('products:');
  for (const p of products) {
    const rule = p.identifier;
    const limits = [
      rule.minLength !== null ? `min ${rule.minLength}` : null,
      rule.maxLength !== null ? `max ${rule.maxLength}` : null,
      rule.pattern ? `pattern ${rule.pattern}` : null,
    ].filter(Boolean);
    io.stdout(`  ${p.productType} (${p.displayName})`);
    io.stdout(`    providers:  ${p.providers.map((v) => `${v.code} (${v.name})`).join(', ')}`);
    io.stdout(`    identifier: ${rule.label ?? 'identifier'}: ${limits.join(', ') || 'no constraints'}`);
    const hint = identifierHint(rule);
    if (hint) io.stdout(`    hint:       ${hint}`);
  }
  io.stdout('accounts:');
  for (const a of accounts) {
    io.stdout(`  ${a.id}  ${a.name} [${a.category}]  ${formatMoney(a.balance)}`);
  }
  return EXIT.ok;
}

async function purchaseCommand(
  session: Session,
  flags: Flags,
  command: 'validate' | 'confirm',
  io: CliIo,
): Promise<number> {
  if (command === 'confirm' && !session.embedded && !flags.yes)
    throw new UsageError(`confirm debits real money at ${session.baseUrl}: add --yes to go ahead`);
  const request = await buildPurchase(session, flags, command, io);
  if (command === 'validate') {
    const quote = await session.service.validate(request, ctx());
    if (flags.json) io.stdout(JSON.stringify(quote, null, 2));
    else describeTransaction(quote, 'quote').forEach((line) => io.stdout(line));
    return EXIT.ok;
  }
  if (flags.ref !== undefined) {
    const refused = await knownReference(session, request, flags, io);
    if (refused) {
      if (flags.json)
        io.stdout(JSON.stringify({ refused, externalReference: request.externalReference }, null, 2));
      io.stderr(`error: ${refused}`);
      return EXIT.failed;
    }
  }
  try {
    const done = await session.service.confirm(request, ctx());
    if (flags.json) io.stdout(JSON.stringify(done, null, 2));
    else describeTransaction(done, 'purchase', request.externalReference).forEach((line) => io.stdout(line));
    return done.status === 'SUCCESSFUL' ? EXIT.ok : EXIT.failed;
  } catch (error) {
    if (outcomeOf(error) !== 'unknown') throw error;
    // Never a failure: the purchase may have gone through. Reconcile, do not confirm again.
    const retry = `npm run cli -- retry --product ${request.productType} --identifier ${request.subscriberIdentifier} --ref ${request.externalReference}`;
    if (flags.json) {
      io.stdout(
        JSON.stringify(
          { outcome: 'unknown', externalReference: request.externalReference, error: errorJson(error) },
          null,
          2,
        ),
      );
    } else {
      io.stdout(
        `outcome unknown — reconcile with retry (external reference ${request.externalReference}): ${retry}`,
      );
      io.stderr(`  cause: ${error instanceof Error ? error.message : String(error)}`);
    }
    return EXIT.outcomeUnknown;
  }
}

async function retryCommand(session: Session, flags: Flags, io: CliIo): Promise<number> {
  const result = await session.service.retry(
    {
      sourceChannel: 'USSD',
      language: flags.language ?? 'en-BW',
      productType: productType(flags),
      subscriberIdentifier: need(flags.identifier, 'identifier'),
      externalReference: need(flags.ref, 'ref'),
    },
    ctx(),
  );
  if (flags.json) io.stdout(JSON.stringify(result, null, 2));
  else describeTransaction(result, 'original purchase', flags.ref).forEach((line) => io.stdout(line));
  return result.status === 'SUCCESSFUL' ? EXIT.ok : EXIT.failed;
}

/** `recover`: each lost purchase looked up at the service; a successful one recorded, its token sent. */
async function recoverCommand(session: Session, flags: Flags, io: CliIo): Promise<number> {
  if (!session.config.redisUrl)
    throw new UsageError('recover needs REDIS_URL: it writes the purchases it finds');
  const language = flags.language ?? 'en-BW';
  const lost: LostPurchase[] = flags.file
    ? parseLostPurchases(readFileSync(flags.file, 'utf8'), language)
    : [
        {
          externalReference: need(flags.ref, 'ref'),
          subscriberIdentifier: need(flags.identifier, 'identifier'),
          productType: productType(flags),
          beneficiaryMsisdn: need(flags.phone, 'phone').replace(/^\+/, ''),
          language,
        },
      ];
  const moneyPath = await startMoneyPath(session.config, {
    purchaseServiceUrl: session.baseUrl,
    runWorkers: false,
  });
  try {
    const results: Recovery[] = [];
    for (const one of lost) {
      const result = await recoverPurchase(
        one,
        { service: session.service, desk: moneyPath.desk },
        { dryRun: flags['dry-run'], requestId: ctx().requestId },
      );
      results.push(result);
      if (!flags.json) io.stdout(`${result.externalReference}  ${result.outcome}  ${result.detail}`);
    }
    const count = (outcome: string) => results.filter((r) => r.outcome === outcome).length;
    if (flags.json) io.stdout(JSON.stringify(results, null, 2));
    else
      io.stdout(
        `${results.length} checked: ${count('recovered') + count('would_recover')} recovered` +
          `${flags['dry-run'] ? ' (dry run)' : ''}, ${count('exists')} already known, ` +
          `${count('not_found') + count('not_successful')} not successful, ${count('unchecked')} unchecked`,
      );
    return count('unchecked') > 0 ? EXIT.failed : EXIT.ok;
  } finally {
    await moneyPath.close();
  }
}

function errorJson(error: unknown): Record<string, unknown> {
  if (error instanceof PurchaseServiceError) {
    const { type, code, message, param, retryable, requestId, status } = error;
    return {
      name: error.name,
      type,
      code,
      message,
      param,
      retryable,
      requestId,
      status,
      outcome: error.outcome,
    };
  }
  if (error instanceof Error) return { name: error.name, message: error.message, outcome: outcomeOf(error) };
  return { message: String(error) };
}

/** One clear line for any failure. */
export function explain(error: unknown, baseUrl: string | undefined): string {
  const where = baseUrl ?? 'the purchase service';
  if (error instanceof AuthenticationError) {
    return `login refused at ${where}: bad credentials (${error.message}); staging and production credentials are separate, check PURCHASE_API_* and the base URL`;
  }
  if (error instanceof TransportError) {
    return error.outcome === 'not_sent'
      ? `cannot reach ${where}: ${error.message}`
      : `no usable answer from ${where}: ${error.message}`;
  }
  if (
    error instanceof MalformedResponseError ||
    (error instanceof PurchaseServiceError && error.code.startsWith('http_'))
  ) {
    const status = (error as { status: number }).status;
    return `${where} does not answer like the purchase service (HTTP ${status}: ${error.message}): wrong PURCHASE_API_BASE_URL or environment?`;
  }
  if (error instanceof PermissionError) return `permission refused (${error.code}): ${error.message}`;
  if (error instanceof PurchaseServiceError) {
    return `${error.code}${error.param ? ` (${error.param})` : ''}: ${error.message} [request id ${error.requestId ?? '-'}]`;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Runs one command; returns the exit code. Everything it prints goes through `io`. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  // Operator commands with flags and usage of their own.
  if (argv[0] === 'blocklist') return blocklistCli(argv.slice(1), io);
  if (argv[0] === 'agent') return (await import('../agents/cli')).agentCli(argv.slice(1), io);
  if (argv[0] === 'purchases') return (await import('../purchases/care/cli')).purchasesCli(argv.slice(1), io);
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}`);
    io.stderr(USAGE);
    return EXIT.usage;
  }
  const { command, flags } = parsed;
  if (flags.help || command === undefined || command === 'help') {
    (command === undefined && !flags.help ? io.stderr : io.stdout)(USAGE);
    return command === undefined && !flags.help ? EXIT.usage : EXIT.ok;
  }
  if (!['check', 'validate', 'confirm', 'retry', 'recover'].includes(command)) {
    io.stderr(`error: unknown command ${command}`);
    io.stderr(USAGE);
    return EXIT.usage;
  }

  let session: Session | undefined;
  try {
    session = await openSession(io);
    if (command === 'check') return await check(session, flags, io);
    if (command === 'retry') return await retryCommand(session, flags, io);
    if (command === 'recover') return await recoverCommand(session, flags, io);
    return await purchaseCommand(session, flags, command as 'validate' | 'confirm', io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      io.stderr(`error: ${error.message}`);
      return EXIT.usage;
    }
    if (flags.json) io.stdout(JSON.stringify({ error: errorJson(error) }, null, 2));
    io.stderr(`error: ${explain(error, session?.baseUrl ?? io.env.PURCHASE_API_BASE_URL)}`);
    return EXIT.failed;
  } finally {
    await session?.close();
  }
}

if (require.main === module) {
  // Logs go to stderr so stdout stays the command's output (and valid JSON with --json).
  logger.clear();
  logger.add(new winston.transports.Console({ stderrLevels: Object.keys(winston.config.npm.levels) }));
  setLogLevel('error'); // until the configuration is read
  main(process.argv.slice(2), {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = EXIT.failed;
    },
  );
}
