/**
 * `npm run cli -- agent <command>`: the operator's agent tools. With `DATABASE_URL` (and
 * `DATABASE_SCHEMA`) they work on the records in PostgreSQL directly; without it (the embedded
 * PGlite, which one process alone may open: the running gateway) they call that gateway's
 * `/admin/agents` at `GATEWAY_URL` (default http://127.0.0.1:$PORT) with `ADMIN_TOKEN`.
 */
import {
  accountCheckFor,
  AgentDesk,
  type AccountCheck,
  type AgentDetails,
  type AgentNetwork,
  type AgentSummary,
  type CreditOutcome,
} from '../agents/admin/desk';
import { AgentInputError } from '../agents/errors';
import type { Statement } from '../agents/float';
import { createAgents } from '../agents';
import type { FloatEntry } from '../agents/ledger/store';
import type { Registration } from '../agents/registrations';
import type { Agent } from '../agents/types';
import type { Config } from '../config';
import { SqlAuditTrail } from '../purchases/care/audit-sql';
import { maskForDisplay } from '../purchases/care/masking';
import { createPurchaseService } from '../vas';
import { formatMoney } from '../vas/money';
import { HttpDesk, type Desk } from './agent-http';
import { directTellers } from './agent-sms';
import {
  EXIT,
  misused,
  parseFlags,
  runCommand,
  switches,
  UsageError,
  valueFlags,
  type CliIo,
  type CommandScope,
  type Display,
} from './kit';

const USAGE = `usage: npm run cli -- agent <command> [flags]
commands:
  add --msisdn N --name NAME (--account ID | --float) [--max-sale "BWP 500.00"]
      [--max-day-value "BWP 5000.00"] [--max-day-count 50] [--language en]
      [--dealer N] [--is-dealer] [--commission "ELECTRICITY:2%"] [--dealer-share 20%]
                             register (--dealer: a retailer under dealer N, which becomes a
                             dealer; --is-dealer: this agent is a dealer); prints the one-time
                             PIN once
  set-dealer --msisdn N --on|--off
                             make an agent a dealer (My retailers on its menu) or not (refused
                             while any agent names it its dealer)
  add-assistant --agent OUTLET --msisdn N [--name NAME]
                             an assistant selling from the outlet's float, its own PIN
  network --msisdn N         a dealer's retailers and an outlet's assistants: floats, today's sales
  deposits [--state pending|approved|rejected|all] [--msisdn N]
                             bank deposits agents reported (pending by default)
  approve-deposit|reject-deposit --id ID [--note TEXT]
                             credit a reported deposit once, or refuse it
  registrations [--state pending|approved|rejected|all] [--dealer N]
                             retailers dealers asked to add by USSD (pending by default)
  approve-registration|reject-registration --id ID [--note TEXT]
                             register the retailer once (prints its one-time PIN once), or refuse it
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
  add --json to any command for the raw result; numbers are masked unless --reveal
  (written to the audit trail).
With DATABASE_URL (and DATABASE_SCHEMA) the records are used directly; otherwise the running
gateway's /admin/agents (GATEWAY_URL, default http://127.0.0.1:$PORT, and ADMIN_TOKEN).`;

const COMMANDS = [
  'add',
  'list',
  'show',
  'disable',
  'enable',
  'set-dealer',
  'reset-pin',
  'credit',
  'adjust',
  'statement',
  'add-assistant',
  'network',
  'deposits',
  'approve-deposit',
  'reject-deposit',
  'registrations',
  'approve-registration',
  'reject-registration',
];

/** Runs one agent command; returns the exit code (0 ok, 1 refused or failed, 2 usage). */
export async function agentCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, {
    ...valueFlags(
      'msisdn',
      'name',
      'account',
      'max-sale',
      'max-day-value',
      'max-day-count',
      'language',
      'amount',
      'ref',
      'note',
      'from',
      'to',
      'dealer',
      'commission',
      'dealer-share',
      'agent',
      'id',
      'state',
    ),
    ...switches('float', 'json', 'reveal', 'is-dealer', 'on', 'off'),
  });
  if (typeof parsed === 'number') return parsed;
  const { values: flags, positionals } = parsed;
  const [command, positionalMsisdn] = positionals;
  if (command === undefined) return misused(io, USAGE);
  if (!COMMANDS.includes(command)) return misused(io, USAGE, `unknown agent command ${command}`);
  const msisdn = flags.msisdn ?? positionalMsisdn;
  return runCommand(io, 'agent', argv, [AgentInputError], async (scope) => {
    const config = scope.config();
    const { desk, shown } = await openDesk(scope, config, flags.reveal);
    /** Masked unless --reveal (audited): the JSON and the lines both print what `shown` gives. */
    const print = async <T>(value: T, text: (shown: T) => string[]) => {
      const visible = await shown(value);
      (flags.json ? [JSON.stringify(visible, null, 2)] : text(visible)).forEach((line) => io.stdout(line));
    };
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
          ...(flags.dealer !== undefined && { dealer: flags.dealer }),
          ...(flags['is-dealer'] && { isDealer: true }),
          ...(flags.commission !== undefined && { commission: flags.commission }),
          ...(flags['dealer-share'] !== undefined && { dealerShare: flags['dealer-share'] }),
        });
        await print(created, (c) => [
          ...describeAgent(c.agent, money),
          `one-time PIN: ${c.oneTimePin}   (shown once: hand it to the agent; it must be changed at first use)`,
        ]);
        return EXIT.ok;
      }
      case 'add-assistant': {
        const created = await desk.addAssistant({
          agent: flags.agent,
          msisdn,
          ...(flags.name !== undefined && { name: flags.name }),
          ...(flags.language !== undefined && { language: flags.language }),
        });
        await print(created, (c) => [
          ...describeAgent(c.agent, money),
          `one-time PIN: ${c.oneTimePin}   (shown once: hand it to the assistant; it must be changed at first use)`,
        ]);
        return EXIT.ok;
      }
      case 'network': {
        const network = await desk.network(msisdn);
        await print(network, (n) => describeNetwork(n, money));
        return EXIT.ok;
      }
      case 'deposits': {
        const deposits = await desk.deposits({
          ...(flags.state !== undefined && { state: flags.state }),
          ...(msisdn !== undefined && { msisdn }),
        });
        await print(deposits, (d) =>
          d.length === 0
            ? ['no deposits']
            : d.map(
                (x) =>
                  `${String(x.id).padStart(6)}  ${x.requestedAt}  ${x.msisdn}  ${money(x.amountMinor).padStart(14)}  ${x.bankReference.padEnd(20)}  ${x.state}${x.decidedBy ? ` by ${x.decidedBy}` : ''}${x.note ? `  (${x.note})` : ''}`,
              ),
        );
        return EXIT.ok;
      }
      case 'approve-deposit':
      case 'reject-deposit': {
        const decision = command === 'approve-deposit' ? 'approve' : 'reject';
        const outcome = await desk.decideDeposit(flags.id, decision, scope.actor, flags.note);
        await print(outcome, (o) =>
          o.status === 'not_found'
            ? ['no such deposit']
            : [
                o.status === 'already'
                  ? `deposit ${o.deposit.id} was ${o.deposit.state} before: nothing changed`
                  : `deposit ${o.deposit.id} ${o.status}: ${money(o.deposit.amountMinor)} ref ${o.deposit.bankReference} for ${o.deposit.msisdn}`,
              ],
        );
        return outcome.status === 'already' ? EXIT.failed : EXIT.ok;
      }
      case 'registrations': {
        const registrations = await desk.registrations({
          ...(flags.state !== undefined && { state: flags.state }),
          ...(flags.dealer !== undefined && { dealer: flags.dealer }),
        });
        await print(registrations, (r) =>
          r.length === 0 ? ['no registrations'] : r.map((x) => registrationLine(x)),
        );
        return EXIT.ok;
      }
      case 'approve-registration':
      case 'reject-registration': {
        const decision = command === 'approve-registration' ? 'approve' : 'reject';
        const outcome = await desk.decideRegistration(flags.id, decision, scope.actor, flags.note);
        await print(outcome, (o) => [
          o.status === 'already'
            ? `registration ${o.registration.id} was ${o.registration.state} before: nothing changed`
            : `registration ${o.registration.id} ${o.status}: ${registrationLine(o.registration)}`,
          ...(o.status === 'approved'
            ? [
                `one-time PIN: ${o.oneTimePin}   (shown once: hand it to the retailer; it must be changed at first use)`,
              ]
            : []),
        ]);
        return outcome.status === 'already' ? EXIT.failed : EXIT.ok;
      }
      case 'list': {
        const agents = await desk.list({ limit: '500' });
        await print(agents, (a) => (a.length === 0 ? ['no agents'] : a.map((s) => summaryLine(s, money))));
        return EXIT.ok;
      }
      case 'show': {
        const details = await desk.show(msisdn);
        await print(details, (d) => describeDetails(d, money));
        return EXIT.ok;
      }
      case 'disable':
      case 'enable': {
        const agent = await desk[command](msisdn);
        await print({ agent }, (a) => [`${a.agent.msisdn}  ${statusOf(a.agent)}`]);
        return EXIT.ok;
      }
      case 'set-dealer': {
        if (flags.on === flags.off)
          return misused(io, USAGE, 'set-dealer needs exactly one of --on and --off');
        const agent = await desk.setDealer(msisdn, flags.on, scope.actor);
        await print({ agent }, (a) => [`${a.agent.msisdn}  ${a.agent.dealer ? 'a dealer' : 'not a dealer'}`]);
        return EXIT.ok;
      }
      case 'reset-pin': {
        const reset = await desk.resetPin(msisdn);
        await print(reset, (r) => [
          `${r.agent.msisdn}  ${statusOf(r.agent)}`,
          `one-time PIN: ${r.oneTimePin}   (shown once: it must be changed at first use)`,
        ]);
        return EXIT.ok;
      }
      case 'credit':
      case 'adjust': {
        const input = { amount: flags.amount, reference: flags.ref, note: flags.note };
        const outcome = await desk[command](msisdn, input);
        await print(outcome, (o) => describeCredit(o, money));
        return EXIT.ok;
      }
      case 'statement': {
        const statement = await desk.statement(msisdn, { from: flags.from, to: flags.to });
        await print(statement, (s) => describeStatement(s, money));
        return EXIT.ok;
      }
    }
    return EXIT.usage;
  });
}

/**
 * The desk: on the records with DATABASE_URL, else over the running gateway's /admin/agents
 * (the embedded database is opened by one process only, the gateway).
 */
async function openDesk(
  scope: CommandScope,
  config: Config,
  reveal: boolean,
): Promise<{ desk: Desk; shown: Display }> {
  if (!config.records.url) {
    const base = scope.io.env.GATEWAY_URL ?? `http://127.0.0.1:${config.port}`;
    if (!config.adminToken)
      throw new UsageError(
        `without DATABASE_URL the agents are in the running gateway's embedded database: set ADMIN_TOKEN (the gateway's) and GATEWAY_URL (default ${base})`,
      );
    return {
      // The gateway masks its answers, or audits the reveal (?reveal=true); masked here too,
      // so the output is the same whichever gateway answers.
      desk: new HttpDesk(base, config.adminToken, reveal),
      shown: async (value) => (reveal ? value : (maskForDisplay(value) as typeof value)),
    };
  }
  const records = await scope.records(config);
  const agents = createAgents(records, config);
  return {
    // A deposit decided here is told to its agent as /admin tells it (queued for the gateway).
    desk: new AgentDesk(agents, accountCheck(scope, config), directTellers(scope, config, records, agents)),
    shown: scope.display(reveal, () => new SqlAuditTrail(records)),
  };
}

/**
 * Whether the purchase service lists an account (`add --account`): asked only then. Without
 * PURCHASE_API_BASE_URL, of an in-process sandbox started for it and stopped with the command.
 */
function accountCheck(scope: CommandScope, config: Config): AccountCheck {
  return async (id) => {
    let baseUrl = config.purchaseApi.baseUrl;
    if (!baseUrl) {
      const { startSandbox } = await import('../sandbox');
      const sandbox = await startSandbox({ port: 0, silent: true });
      scope.onClose(() => sandbox.close());
      baseUrl = sandbox.url;
      scope.io.stderr(`no PURCHASE_API_BASE_URL: checking the account against an in-process sandbox`);
    }
    return accountCheckFor(createPurchaseService({ ...config.purchaseApi, baseUrl }))(id);
  };
}

function registrationLine(r: Registration): string {
  const decided = r.decidedBy ? ` by ${r.decidedBy}` : '';
  return `${String(r.id).padStart(6)}  ${r.requestedAt}  ${r.msisdn}  ${r.name.padEnd(20)}  dealer ${r.dealerMsisdn}  ${r.state}${decided}${r.note ? `  (${r.note})` : ''}`;
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
    ...(agent.dealer ? ['  dealer:   yes (My retailers on its menu)'] : []),
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
    ...(agent.dealer ? ['  dealer:   yes'] : []),
    ...(float
      ? [`  float:    ${money(float.availableMinor)} available, ${money(float.heldMinor)} held`]
      : []),
    `  limits:   ${money(limits.maxSaleMinor)} a sale, ${money(limits.maxDayValueMinor)} and ${limits.maxDayCount} sales a day`,
    `  today:    ${today.count} sales, ${money(today.valueMinor)}`,
    `  created:  ${agent.createdAt}`,
  ];
}

function describeNetwork(network: AgentNetwork, money: (minor: number) => string): string[] {
  const line = (entry: AgentNetwork['retailers'][number]) =>
    `  ${entry.agent.msisdn}  ${entry.agent.name.padEnd(20)}  ${statusOf(entry.agent).padEnd(26)}  ${
      entry.float ? `float ${money(entry.float.availableMinor)}` : fundingOf(entry.agent)
    }  today ${entry.today.count} sales, ${money(entry.today.valueMinor)}`;
  return [
    `agent ${network.agent.msisdn}  ${network.agent.name}`,
    `retailers: ${network.retailers.length === 0 ? 'none' : ''}`,
    ...network.retailers.map(line),
    `assistants: ${network.assistants.length === 0 ? 'none' : ''}`,
    ...network.assistants.map(line),
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
    `commission ${money(s.commission.periodMinor)} in these entries; ` +
      `today ${money(s.commission.todayMinor)}, this month ${money(s.commission.monthMinor)}`,
    `now: ${money(s.balance.availableMinor)} available, ${money(s.balance.heldMinor)} held; ` +
      `re-derived from ${s.balance.entries} entries: ${money(s.derivedMinor)}${s.derivedMinor === s.balance.availableMinor ? ' (matches)' : ' (MISMATCH)'}`,
  ];
}
