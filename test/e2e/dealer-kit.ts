import axios from 'axios';
import { main } from '../../src/cli/main';
import type { Gateway, GatewayOptions } from '../../src/gateway/app';
import type { Database } from '../../src/records/database';
import { testDatabase } from '../support/database';
import { startTestGateway, waitForSms } from './harness';

/**
 * What the dealer USSD e2e files (issue 32) share: gateways with their admin token, agents on a
 * float whose one-time PIN is replaced by `PIN`, a float credited, a float read, and
 * `npm run cli -- agent …` over the gateway's /admin/agents.
 */

export const PIN = '5937';

/** The first SMS after `PIN <one-time> <own>` (English or Setswana). */
const PIN_CHANGED = /^(Your PIN is changed|PIN ya gago e fetotswe)/;

export interface AgentSpec {
  /** The dealer's number: the agent is its retailer. */
  dealer?: string;
  /** The agent's SMS language; omitted: the gateway's default. */
  language?: string;
}

export function dealerKit(admin: string) {
  const auth = { headers: { authorization: `Bearer ${admin}` } };
  let seq = 0;

  /** A gateway with this admin token; SMS replies enough for a test's dialogues. */
  const start = (env: Record<string, string> = {}, options: GatewayOptions = {}) =>
    startTestGateway({ ADMIN_TOKEN: admin, SMS_REPLIES_PER_MIN: '50', ...env }, options);

  /** An agent added on a float; its one-time PIN. */
  async function add(gateway: Gateway, msisdn: string, name: string, spec: AgentSpec = {}): Promise<string> {
    const { dealer, language } = spec;
    const added = await axios.post(
      `${gateway.url}/admin/agents`,
      { msisdn, name, float: true, ...(language && { language }), ...(dealer && { dealer }) },
      auth,
    );
    return String(added.data.oneTimePin);
  }

  return {
    auth,
    start,
    add,

    /**
     * A gateway on a test schema of its own that the test reaches too (`records`, wrapped by
     * `wrap` for the gateway), dropped when the gateway closes.
     */
    async startOnRecords(
      schema: string,
      env: Record<string, string>,
      wrap: (db: Database) => Database = (db) => db,
    ) {
      const records = await testDatabase(schema);
      const gateway = await start(env, { records: wrap(records.db) });
      const close = async () => {
        await gateway.close();
        await records.cleanup();
      };
      return { gateway: { ...gateway, close }, records };
    },

    /** An agent on a float with its own PIN (set by SMS, its confirmation awaited). */
    async agent(gateway: Gateway, msisdn: string, name: string, spec: AgentSpec = {}): Promise<void> {
      const otp = await add(gateway, msisdn, name, spec);
      await axios.post(`${gateway.url}/sms/inbound`, {
        id: `pin-${msisdn}-${++seq}`,
        from: msisdn,
        to: '1',
        text: `PIN ${otp} ${PIN}`,
        receivedAt: 'now',
      });
      const [changed] = await waitForSms(gateway, msisdn, 1);
      expect(changed.message).toMatch(PIN_CHANGED);
    },

    credit: (gateway: Gateway, msisdn: string, amount: string, reference: string) =>
      axios.post(`${gateway.url}/admin/agents/${msisdn}/credits`, { amount, reference }, auth),

    floatOf: async (gateway: Gateway, msisdn: string): Promise<number> =>
      (await axios.get(`${gateway.url}/admin/agents/${msisdn}`, auth)).data.float.availableMinor,

    /** `npm run cli -- agent …` over the gateway's /admin/agents. */
    async cli(gateway: Gateway, argv: string[]) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(['agent', ...argv], {
        stdout: (l) => out.push(l),
        stderr: (l) => err.push(l),
        env: { NODE_ENV: 'test', GATEWAY_URL: gateway.url, ADMIN_TOKEN: admin },
      });
      return { code, out: out.join('\n'), err: err.join('\n') };
    },
  };
}
