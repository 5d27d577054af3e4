/**
 * `check`, `validate`, `confirm`, `retry`: credentials and connectivity to the purchase service
 * without the gateway, and single calls of it (`npm run cli -- <command>`).
 */
import { randomBytes } from 'node:crypto';
import { debitAccountLookup } from '../sales/debit-account';
import {
  NotFoundError,
  PurchaseServiceError,
  formatMoney,
  identifierHint,
  outcomeOf,
  parseDecimalAmount,
  tokensForDisplay,
  type Account,
  type ProductType,
  type PurchaseRequest,
  type Transaction,
} from '../vas';
import { ConfigError } from '../config';
import { EXIT, misused, parseFlags, switches, UsageError, valueFlags, type CliIo } from './kit';
import { errorJson, explain, openSession, type Session } from './service-session';

const COMMANDS = ['check', 'validate', 'confirm', 'retry'];
const PRODUCT_TYPES: readonly ProductType[] = ['ELECTRICITY', 'AIRTIME', 'WATER'];
const SANDBOX_PHONE = '26771234567';

interface Flags {
  product?: string;
  provider?: string;
  identifier?: string;
  amount?: string;
  phone?: string;
  account?: string;
  ref?: string;
  language?: string;
  json: boolean;
  yes: boolean;
}

/** Runs one of the purchase service commands (`usage` is the whole CLI's); returns the exit code. */
export async function serviceCli(argv: string[], io: CliIo, usage: string): Promise<number> {
  const parsed = parseFlags(io, usage, argv, {
    ...valueFlags('product', 'provider', 'identifier', 'amount', 'phone', 'account', 'ref', 'language'),
    ...switches('json', 'yes'),
  });
  if (typeof parsed === 'number') return parsed;
  const { positionals } = parsed;
  const flags: Flags = parsed.values;
  const command = positionals[0];
  if (positionals.length > 1)
    return misused(io, usage, `one command at a time, got: ${positionals.join(' ')}`);
  if (command === undefined) return misused(io, usage);
  if (!COMMANDS.includes(command)) return misused(io, usage, `unknown command ${command}`);

  let session: Session | undefined;
  try {
    session = await openSession(io);
    if (command === 'check') return await check(session, flags, io);
    if (command === 'retry') return await retryCommand(session, flags, io);
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
