import { AgentConflictError, AgentInputError } from '../errors';
import type { Agents } from '../index';
import type { Statement } from '../float';
import type { FloatBalance, FloatEntry } from '../ledger/store';
import type { DeskAgents } from './desk-agents';
import { instant, moneyInput, text } from './desk-input';

/**
 * An operator's float tools: a top-up (credit), a signed correction (adjust), each applied once
 * per reference and per Idempotency-Key, and the statement over local days or ISO times.
 */

export interface CreditInput {
  amount?: unknown;
  reference?: unknown;
  note?: unknown;
}

export interface CreditOutcome {
  /** False when the reference (or idempotency key) had been applied before: nothing written. */
  applied: boolean;
  entry: FloatEntry;
  balance: FloatBalance;
}

export class DeskFloat {
  constructor(
    private readonly agents: Agents,
    private readonly found: DeskAgents,
  ) {}

  /** A float top-up; `idempotencyKey` (a client's retry key) and the reference each apply it once. */
  credit(msisdn: unknown, input: CreditInput, idempotencyKey?: string): Promise<CreditOutcome> {
    return this.write('credit', msisdn, input, idempotencyKey);
  }

  /** A signed correction with a note (`BWP -20.00`). */
  adjust(msisdn: unknown, input: CreditInput, idempotencyKey?: string): Promise<CreditOutcome> {
    return this.write('adjustment', msisdn, input, idempotencyKey);
  }

  /** `from`/`to`: local days (`2026-11-23`, `to` inclusive) or ISO times (`to` exclusive). */
  async statement(msisdn: unknown, period: { from?: unknown; to?: unknown } = {}): Promise<Statement> {
    const agent = await this.found.agent(msisdn);
    const zone = this.agents.float.timeZone;
    const from = period.from === undefined ? undefined : instant('from', period.from, zone, false);
    const to = period.to === undefined ? undefined : instant('to', period.to, zone, true);
    if (from && to && from >= to) throw new AgentInputError('to', 'to must be after from');
    return this.agents.float.statement(agent.msisdn, { from, to });
  }

  private async write(
    kind: 'credit' | 'adjustment',
    msisdn: unknown,
    input: CreditInput,
    idempotencyKey: string | undefined,
  ): Promise<CreditOutcome> {
    const agent = await this.found.agent(msisdn);
    const amount = moneyInput('amount', input.amount, kind === 'adjustment', this.agents.float.currency);
    const reference = text('reference', input.reference);
    const note = input.note === undefined ? undefined : text('note', input.note);
    const common = { amount, reference, ...(idempotencyKey !== undefined && { idempotencyKey }) };
    const { float } = this.agents;
    const result =
      kind === 'credit'
        ? await float.credit(agent, { ...common, ...(note !== undefined && { note }) })
        : await float.adjust(agent, { ...common, note: note ?? '' });
    if (result.status === 'conflict')
      throw new AgentConflictError(
        `${result.field === 'reference' ? 'reference' : 'idempotency_key'}_used`,
        result.field === 'reference'
          ? 'this reference was used for another amount on this agent'
          : 'this Idempotency-Key was used for another request',
      );
    if (result.status === 'insufficient')
      throw new AgentConflictError(
        'insufficient_float',
        `the adjustment is larger than the float (${float.format(result.availableMinor)} available)`,
      );
    return {
      applied: result.status === 'credited',
      entry: result.entry,
      balance: await float.balance(agent.msisdn),
    };
  }
}
