import type {
  AgentDesk,
  AgentDetails,
  AgentNetwork,
  AgentSummary,
  CreditOutcome,
} from '../agents/admin/desk';
import type { Deposit, DepositDecision } from '../agents/ledger/store';
import { AgentConflictError, AgentExistsError, AgentInputError, AgentNotFoundError } from '../agents/errors';
import type { Statement } from '../agents/float';
import type { Registration, RegistrationDecision } from '../agents/registrations';
import type { Agent } from '../agents/types';

/** The operator's agent calls, on the records (`AgentDesk`) or over a running gateway (`HttpDesk`). */
export type Desk = Pick<
  AgentDesk,
  | 'add'
  | 'list'
  | 'show'
  | 'disable'
  | 'enable'
  | 'setDealer'
  | 'resetPin'
  | 'credit'
  | 'adjust'
  | 'statement'
  | 'addAssistant'
  | 'network'
  | 'deposits'
  | 'decideDeposit'
  | 'registrations'
  | 'decideRegistration'
>;

/** The desk over `/admin/agents` of a running gateway: the same calls, the same errors. */
export class HttpDesk implements Desk {
  constructor(
    private readonly base: string,
    private readonly token: string,
    private readonly reveal = false,
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
  async setDealer(msisdn: unknown, dealer: unknown) {
    return (await this.call<{ agent: Agent }>('POST', `/${this.path(msisdn)}/dealer`, { dealer })).agent;
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

  addAssistant(input: { agent?: unknown } & object) {
    return this.call<{ agent: Agent; oneTimePin: string }>(
      'POST',
      `/${this.path(input.agent)}/assistants`,
      input,
    );
  }
  network(msisdn: unknown) {
    return this.call<AgentNetwork>('GET', `/${this.path(msisdn)}/network`);
  }
  async deposits(options: { state?: unknown; msisdn?: unknown } = {}) {
    const query = new URLSearchParams();
    if (typeof options.state === 'string') query.set('state', options.state);
    if (typeof options.msisdn === 'string') query.set('msisdn', options.msisdn);
    const q = query.size > 0 ? `?${query}` : '';
    return (await this.call<{ deposits: Deposit[] }>('GET', `/deposits${q}`)).deposits;
  }
  decideDeposit(id: unknown, decision: 'approve' | 'reject', _by: string, note?: unknown) {
    // The gateway names the operator from its token.
    const path = `/deposits/${encodeURIComponent(String(id ?? ''))}/${decision}`;
    return this.call<DepositDecision>('POST', path, note === undefined ? {} : { note });
  }
  async registrations(options: { state?: unknown; dealer?: unknown } = {}) {
    const query = new URLSearchParams();
    if (typeof options.state === 'string') query.set('state', options.state);
    if (typeof options.dealer === 'string') query.set('dealer', options.dealer);
    const q = query.size > 0 ? `?${query.toString()}` : '';
    return (await this.call<{ registrations: Registration[] }>('GET', `/registrations${q}`)).registrations;
  }
  decideRegistration(id: unknown, decision: 'approve' | 'reject', _by: string, note?: unknown) {
    // The gateway names the operator from its token.
    const path = `/registrations/${encodeURIComponent(String(id ?? ''))}/${decision}`;
    return this.call<Exclude<RegistrationDecision, { status: 'not_found' }>>(
      'POST',
      path,
      note === undefined ? {} : { note },
    );
  }

  private path(msisdn: unknown): string {
    if (typeof msisdn !== 'string' || msisdn.trim() === '')
      throw new AgentInputError('msisdn', 'msisdn is required');
    return encodeURIComponent(msisdn.trim());
  }

  private async call<T>(method: string, path: string, body?: object): Promise<T> {
    let res: Response;
    try {
      const url = new URL(`${this.base}/admin/agents${path}`);
      if (this.reveal) url.searchParams.set('reveal', 'true');
      res = await fetch(url, {
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
