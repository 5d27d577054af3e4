/**
 * `npm run cli -- agent <command>`: the operator's agent tools. With `REDIS_URL` they work on
 * the agent stores directly; without it (the in-memory default, where the agents live inside
 * the running gateway) they call that gateway's `/admin/agents` at `GATEWAY_URL` (default
 * http://127.0.0.1:$PORT) with `ADMIN_TOKEN`.
 */
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config';
import { commandConnection } from '../redis/connection';
import { createPurchaseService } from '../vas';
import { AgentDesk, type AgentDetails, type AgentSummary, type CreditOutcome } from './admin/desk';
import { AgentConflictError, AgentExistsError, AgentInputError, AgentNotFoundError } from './errors';
import type { Statement } from './float';
import { accountCheckFor, createAgents } from './index';
import type { FloatEntry } from './ledger/store';
import type { Agent } from './types';
import { formatMoney } from '../vas/money';

export interface AgentCliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

export const AGENT_USAGE = `usage: npm run cli -- agent <command> [flags]
commands:
  add --msisdn N --name NAME (--account ID | --float) [--max-sale "BWP 500.00"]
      [--max-day-value "BWP 5000.00"] [--max-day-count 50] [--language en]
                             register; prints the one-time PIN once
  list                       every agent, with its float
  show --msisdn N            one agent: status, limits, what is left today, float
  disable|enable --msisdn N  stop or allow sales (enable also clears lockouts)
  reset-pin --msisdn N       a fresh one-time PIN (printed once); lifts a lockout
  credit --msisdn N --amount "BWP 500.00" --ref R [--note TEXT]
                             top up a float, once per reference
  adjust --msisdn N --amount "BWP -5.00" --ref R --note TEXT
                             correct a float, once per reference
  statement --msisdn N [--from 2026-11-01] [--to 2026-11-30]
                             entries and balances (days in TZ, both inclusive)
  add --json to any command for the raw result.
With REDIS_URL the stores are used directly; otherwise the running gateway's /admin/agents
(GATEWAY_URL, default http://127.0.0.1:$PORT, and ADMIN_TOKEN).`;

type Desk = Pick<
  AgentDesk,
  'add' | 'list' | 'show' | 'disable' | 'enable' | 'resetPin' | 'credit' | 'adjust' | 'statement'
>;

const COMMANDS = ['add', 'list', 'show', 'disable', 'enable', 'reset-pin', 'credit', 'adjust', 'statement'];

class UsageError extends Error {}

/** Runs one agent command; returns the exit code (0 ok, 1 refused or failed, 2 usage). */
export async function agentCli(argv: string[], io: AgentCliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        msisdn: { type: 'string' },
        name: { type: 'string' },
        account: { type: 'string' },
        float: { type: 'boolean', default: false },
        'max-sale': { type: 'string' },
        'max-day-value': { type: 'string' },
        'max-day-count': { type: 'string' },
        language: { type: 'string' },
        amount: { type: 'string' },
        ref: { type: 'string' },
        note: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}`);
    io.stderr(AGENT_USAGE);
    return 2;
  }
  const { values: flags, positionals } = parsed;
  const [command, positionalMsisdn] = positionals;
  if (flags.help || command === undefined || command === 'help') {
    (command === undefined && !flags.help ? io.stderr : io.stdout)(AGENT_USAGE);
    return command === undefined && !flags.help ? 2 : 0;
  }
  if (!COMMANDS.includes(command)) {
    io.stderr(`error: unknown agent command ${command}`);
    io.stderr(AGENT_USAGE);
    return 2;
  }
  const msisdn = flags.msisdn ?? positionalMsisdn;
  let opened: { desk: Desk; close(): Promise<void> } | undefined;
  try {
    const config = loadConfig(io.env);
    opened = await openDesk(config, io);
    const desk = opened.desk;
    const print = (value: unknown, text: () => string[]) =>
      (flags.json ? [JSON.stringify(value, null, 2)] : text()).forEach((line) => io.stdout(line));
    const currency = config.agents.currency;
    const money = (minor: number) => formatMoney({ currency, minor });
    switch (command) {
      case 'add': {
        const created = await desk.add({
          msisdn,
          name: flags.name,
          language: flags.language,
          ...(flags.account !== undefined && { account: flags.account }),
          ...(flags.float && { float: true }),
          maxSale: flags['max-sale'],
          maxDayValue: flags['max-day-value'],
          maxDayCount: flags['max-day-count'],
        });
        print(created, () => [
          ...describeAgent(created.agent, money),
          `one-time PIN: ${created.oneTimePin}   (shown once: hand it to the agent; it must be changed at first use)`,
        ]);
        return 0;
      }
      case 'list': {
        const agents = await desk.list({ limit: '500' });
        print(agents, () => (agents.length === 0 ? ['no agents'] : agents.map((s) => summaryLine(s, money))));
        return 0;
      }
      case 'show': {
        const details = await desk.show(msisdn);
        print(details, () => describeDetails(details, money));
        return 0;
      }
      case 'disable':
      case 'enable': {
        const agent = await desk[command](msisdn);
        print({ agent }, () => [`${agent.msisdn}  ${statusOf(agent)}`]);
        return 0;
      }
      case 'reset-pin': {
        const reset = await desk.resetPin(msisdn);
        print(reset, () => [
          `${reset.agent.msisdn}  ${statusOf(reset.agent)}`,
          `one-time PIN: ${reset.oneTimePin}   (shown once: it must be changed at first use)`,
        ]);
        return 0;
      }
      case 'credit':
      case 'adjust': {
        const input = { amount: flags.amount, reference: flags.ref, note: flags.note };
        const outcome = await desk[command](msisdn, input);
        print(outcome, () => describeCredit(outcome, money));
        return 0;
      }
      case 'statement': {
        const statement = await desk.statement(msisdn, { from: flags.from, to: flags.to });
        print(statement, () => describeStatement(statement, money));
        return 0;
      }
    }
    return 2;
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof AgentInputError ||
      (error as Error).name === 'ConfigError'
    ) {
      io.stderr(`error: ${(error as Error).message}`);
      return 2;
    }
    io.stderr(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await opened?.close();
  }
}

async function openDesk(config: Config, io: AgentCliIo): Promise<{ desk: Desk; close(): Promise<void> }> {
  if (!config.redisUrl) {
    const base = io.env.GATEWAY_URL ?? `http://127.0.0.1:${config.port}`;
    if (!config.adminToken)
      throw new UsageError(
        `without REDIS_URL the agents live in the running gateway: set ADMIN_TOKEN (the gateway's) and GATEWAY_URL (default ${base})`,
      );
    return { desk: new HttpDesk(base, config.adminToken), close: async () => undefined };
  }
  const redis = commandConnection(config.redisUrl, { cluster: config.redisCluster });
  let closeSandbox = async () => undefined as void;
  const agents = createAgents(redis, config.redisPrefix, config);
  const desk = new AgentDesk(agents, async (id) => {
    // The purchase service is only asked when an account is given.
    let baseUrl = config.purchaseApi.baseUrl;
    if (!baseUrl) {
      const { startSandbox } = await import('../sandbox');
      const sandbox = await startSandbox({ port: 0, silent: true });
      closeSandbox = () => sandbox.close();
      baseUrl = sandbox.url;
      io.stderr(`no PURCHASE_API_BASE_URL: checking the account against an in-process sandbox`);
    }
    return accountCheckFor(createPurchaseService({ ...config.purchaseApi, baseUrl }))(id);
  });
  return {
    desk,
    close: async () => {
      await closeSandbox();
      await redis.quit();
    },
  };
}

/** The desk over `/admin/agents` of a running gateway: the same calls, the same errors. */
class HttpDesk implements Desk {
  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {}

  add(input: object) {
    return this.call<{ agent: Agent; oneTimePin: string }>('POST', '', input);
  }
  async list(options: { limit?: unknown } = {}) {
    const query = options.limit === undefined ? '' : `?limit=${encodeURIComponent(String(options.limit))}`;
    return (await this.call<{ agents: AgentSummary[] }>('GET', query)).agents;
  }
  show(msisdn: unknown) {
    return this.call<AgentDetails>('GET', `/${this.path(msisdn)}`);
  }
  async disable(msisdn: unknown) {
    return (await this.call<{ agent: Agent }>('POST', `/${this.path(msisdn)}/disable`)).agent;
  }
  async enable(msisdn: unknown) {
    return (await this.call<{ agent: Agent }>('POST', `/${this.path(msisdn)}/enable`)).agent;
  }
  resetPin(msisdn: unknown) {
    return this.call<{ agent: Agent; oneTimePin: string }>('POST', `/${this.path(msisdn)}/reset-pin`);
  }
  credit(msisdn: unknown, input: object) {
    return this.call<CreditOutcome>('POST', `/${this.path(msisdn)}/credits`, input);
  }
  adjust(msisdn: unknown, input: object) {
    return this.call<CreditOutcome>('POST', `/${this.path(msisdn)}/adjustments`, input);
  }
  statement(msisdn: unknown, period: { from?: unknown; to?: unknown } = {}) {
    const query = new URLSearchParams();
    if (typeof period.from === 'string') query.set('from', period.from);
    if (typeof period.to === 'string') query.set('to', period.to);
    const q = query.size > 0 ? `?${query}` : '';
    return this.call<Statement>('GET', `/${this.path(msisdn)}/statement${q}`);
  }

  private path(msisdn: unknown): string {
    if (typeof msisdn !== 'string' || msisdn.trim() === '')
      throw new AgentInputError('msisdn', 'msisdn is required');
    return encodeURIComponent(msisdn.trim());
  }

  private async call<T>(method: string, path: string, body?: object): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.base}/admin/agents${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${this.token}`,
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new Error(
        `cannot reach the gateway at ${this.base}: ${(error as Error).message} (is it running? GATEWAY_URL?)`,
      );
    }
    const json = (await res.json().catch(() => ({}))) as { error?: string; field?: string; message?: string };
    if (res.ok) return json as T;
    const message = json.message ?? `HTTP ${res.status}`;
    if (res.status === 400) throw new AgentInputError(json.field ?? 'request', message);
    if (res.status === 404 && json.error === 'not_found') throw new AgentNotFoundError(message);
    if (res.status === 404)
      throw new Error(
        `the gateway at ${this.base} serves no /admin/agents (is ADMIN_TOKEN set there, and the agents wired?)`,
      );
    if (res.status === 401) throw new Error(`the gateway refused ADMIN_TOKEN`);
    if (res.status === 409 && json.error === 'agent_exists') throw new AgentExistsError(message);
    if (res.status === 409) throw new AgentConflictError(json.error ?? 'conflict', message);
    throw new Error(`${message} (HTTP ${res.status})`);
  }
}

function statusOf(agent: Agent): string {
  if (agent.status === 'locked') return `locked until ${agent.lockedUntil}`;
  if (agent.status === 'disabled') return `disabled (${agent.disabledReason ?? 'operator'})`;
  return agent.mustChangePin ? 'active (must change PIN)' : 'active';
}

function fundingOf(agent: Agent): string {
  return agent.funding.kind === 'float' ? 'float' : `account ${agent.funding.debitedAccountId}`;
}

function describeAgent(agent: Agent, money: (minor: number) => string): string[] {
  const limits = agent.limits;
  const overrides = [
    limits.maxSaleMinor !== undefined && `max sale ${money(limits.maxSaleMinor)}`,
    limits.maxDayValueMinor !== undefined && `max per day ${money(limits.maxDayValueMinor)}`,
    limits.maxDayCount !== undefined && `max ${limits.maxDayCount} sales a day`,
  ].filter(Boolean);
  return [
    `agent ${agent.msisdn}  ${agent.name}  [${agent.language}]`,
    `  status:   ${statusOf(agent)}`,
    `  funding:  ${fundingOf(agent)}`,
    `  limits:   ${overrides.length > 0 ? overrides.join(', ') : 'the configured defaults'}`,
  ];
}

function summaryLine(summary: AgentSummary, money: (minor: number) => string): string {
  const { agent, float } = summary;
  const balance = float
    ? `float ${money(float.availableMinor)} (held ${money(float.heldMinor)})`
    : fundingOf(agent);
  return `${agent.msisdn}  ${agent.name.padEnd(20)}  ${statusOf(agent).padEnd(26)}  ${balance}`;
}

function describeDetails(details: AgentDetails, money: (minor: number) => string): string[] {
  const { agent, float, allowance } = details;
  const { limits, today } = allowance;
  return [
    `agent ${agent.msisdn}  ${agent.name}  [${agent.language}]`,
    `  status:   ${statusOf(agent)}${agent.failedAttempts > 0 ? `, ${agent.failedAttempts} wrong PIN(s)` : ''}`,
    `  funding:  ${fundingOf(agent)}`,
    ...(float
      ? [`  float:    ${money(float.availableMinor)} available, ${money(float.heldMinor)} held`]
      : []),
    `  limits:   ${money(limits.maxSaleMinor)} a sale, ${money(limits.maxDayValueMinor)} and ${limits.maxDayCount} sales a day`,
    `  today:    ${today.count} sales, ${money(today.valueMinor)}`,
    `  created:  ${agent.createdAt}`,
  ];
}

function describeCredit(outcome: CreditOutcome, money: (minor: number) => string): string[] {
  const e = outcome.entry;
  return [
    outcome.applied
      ? `${e.kind} ${money(e.amountMinor)} ref ${e.reference} applied (entry ${e.seq})`
      : `ref ${e.reference} was applied before (entry ${e.seq}): nothing changed`,
    `float: ${money(outcome.balance.availableMinor)} available, ${money(outcome.balance.heldMinor)} held`,
  ];
}

function entryLine(e: FloatEntry, money: (minor: number) => string): string {
  const what = e.purchaseKey ?? e.reference ?? '';
  const delta = e.deltaMinor === 0 ? '' : `${e.deltaMinor > 0 ? '+' : '-'}${money(Math.abs(e.deltaMinor))}`;
  return `${String(e.seq).padStart(5)}  ${e.at}  ${e.kind.padEnd(10)}  ${money(e.amountMinor).padStart(14)}  ${delta.padStart(15)}  ${money(e.balanceMinor).padStart(14)}  ${what}${e.note ? `  (${e.note})` : ''}`;
}

function describeStatement(s: Statement, money: (minor: number) => string): string[] {
  return [
    `float statement ${s.msisdn}  ${s.from ?? 'start'} → ${s.to ?? 'now'}`,
    `opening balance ${money(s.openingMinor)}`,
    `  seq  at                        kind                amount           change         balance  purchase/reference`,
    ...s.entries.map((e) => entryLine(e, money)),
    `closing balance ${money(s.closingMinor)}`,
    `now: ${money(s.balance.availableMinor)} available, ${money(s.balance.heldMinor)} held; ` +
      `re-derived from ${s.balance.entries} entries: ${money(s.derivedMinor)}${s.derivedMinor === s.balance.availableMinor ? ' (matches)' : ' (MISMATCH)'}`,
  ];
}
