import type { Database, Queryable } from '../../src/records/database';
import type { Gateway } from '../../src/gateway/app';
import { dealerKit, PIN } from './dealer-kit';
import { dialogue, hop, newPhone } from './harness';

/**
 * Issue 32: "My retailers" shows only for a dealer (`agents.dealer`, set by the operator or by
 * registering a retailer under it), and finding that out costs the dial nothing more: it is a
 * column of the agent's row, so a dealer's dial and any other agent's send the same single read
 * of `agents`.
 */

const kit = dealerKit('agent-ussd-dealer-dial-admin-token');
const sent: string[] = [];

/** The records with every statement sent to them noted. */
function counted(db: Database): Database {
  const statements = (on: Queryable): Queryable => ({
    query: (text, params) => {
      sent.push(text.replace(/\s+/g, ' '));
      return on.query(text, params);
    },
  });
  return {
    kind: db.kind,
    sealer: db.sealer,
    query: statements(db).query,
    transaction: (work) => db.transaction((tx) => work(statements(tx))),
    transactionInOneTrip: (work) => db.transactionInOneTrip((tx) => work(statements(tx))),
    withAdvisoryLock: (key, work) => db.withAdvisoryLock(key, (session) => work(statements(session))),
    close: () => db.close(),
  };
}

let gateway: Gateway;

beforeAll(async () => {
  ({ gateway } = await kit.startOnRecords('dealer_dial', { GATEWAY_WORKERS: 'false' }, counted));
});
afterAll(() => gateway.close());

/** An agent on a float whose one-time PIN is replaced by 5937 over USSD. */
async function agent(msisdn: string, name: string, dealer?: string): Promise<void> {
  const otp = await kit.add(gateway, msisdn, name, { dealer });
  const chosen = await dialogue(gateway, `pin-${msisdn}`, msisdn, [otp, PIN, PIN]);
  expect(chosen[3].screen).toMatch(/^Your PIN is changed/);
}

/** The statements of one hop that read the agents table. */
async function agentReads(session: string, phone: string, text: string) {
  const before = sent.length;
  const reply = await hop(gateway, session, phone, text);
  return { reply, reads: sent.slice(before).filter((s) => /\bFROM agents\b/.test(s)) };
}

it("a dealer's dial and another agent's each read the agent once; only the dealer's menu has My retailers", async () => {
  const dealer = newPhone();
  const shop = newPhone();
  await agent(dealer, 'Dealer Ltd');
  await agent(shop, 'Kgosi Shop', dealer);

  for (const [phone, isDealer] of [
    [dealer, true],
    [shop, false],
  ] as const) {
    const session = `dial-${phone}`;
    const dial = await agentReads(session, phone, '');
    expect(dial.reply.screen).toMatch(/^Agent: enter your PIN/);
    // One statement: the agent's row, whose `dealer` column says whether it is a dealer (read with
    // the caller's saved meters: src/subscribers/caller-on-dial.ts).
    expect(dial.reads).toHaveLength(1);
    expect(dial.reads[0]).toMatch(/\bdealer, .*FROM agents WHERE msisdn = \$1\b/);
    const menu = await hop(gateway, session, phone, '5937');
    expect(menu.screen).toMatch(/^Agent menu:/);
    if (isDealer) expect(menu.screen).toMatch(/\n\d+ My retailers/);
    else expect(menu.screen).not.toMatch(/My retailers/);
  }
});
