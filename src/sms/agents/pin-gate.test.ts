import { AgentPins, AgentRegistry } from '../../agents';
import { SqlAgentStore } from '../../agents/store';
import type { Database } from '../../records/database';
import { testPglite } from '../../../test/support/database';
import { loadLocales } from '../../i18n';
import { Keywords } from '../commands/keywords';
import type { InboundSms } from '../inbound/types';
import { MemorySmsMoStore, type PendingQuote } from '../mo/store';
import { PinGate } from './pin-gate';

/** The gate with a real registry (embedded PGlite) and quote store (memory): what it keeps, what it counts. */

let db: Database;
let closeDb: () => Promise<void>;
beforeAll(async () => {
  ({ db, cleanup: closeDb } = await testPglite());
});
afterAll(() => closeDb());
afterEach(() => db.query('TRUNCATE agents'));

const AGENT = '26771234567';
const PIN = '7351';
const CODE = '4821';
const DAY = 24 * 3600 * 1000;

async function setUp() {
  const settings = {
    store: new SqlAgentStore(db),
    timeZone: 'Africa/Gaborone',
    region: 'BW' as const,
    scrypt: { N: 1024, r: 8, p: 1, keyLen: 32 },
  };
  const registry = new AgentRegistry(settings);
  const pins = new AgentPins(settings);
  const { oneTimePin } = await registry.add({ msisdn: AGENT, name: 'Kgosi', funding: { kind: 'float' } });
  expect(await pins.changePin(AGENT, oneTimePin, PIN)).toEqual({ status: 'changed' });
  const quotes = new MemorySmsMoStore();
  await quotes.putQuote(AGENT, { id: 'q1', code: CODE, expiresAt: Date.now() + DAY } as PendingQuote, DAY);
  const gate = new PinGate(registry, pins, new Keywords(loadLocales()), 'BW', quotes);
  const sms = (text: string, from = `+${AGENT}`): InboundSms => ({
    provider: 'generic',
    messageId: null,
    from,
    to: '12345',
    text,
    receivedAt: 'now',
  });
  const attempts = async () => (await registry.get(AGENT))!.failedAttempts;
  return { gate, sms, attempts };
}

describe('PinGate', () => {
  it('checks `YES <code> <PIN>` only once the message is taken, and keeps no PIN', async () => {
    const { gate, sms, attempts } = await setUp();
    const screened = await gate.screen(sms(`YES ${CODE} 9999`));
    expect(screened.sms.text).toBe(`YES ${CODE} XXXX`);
    expect(await attempts()).toBe(0);
    expect((await screened.checked()).pin).toEqual({ status: 'wrong', attemptsLeft: 2 });
    expect(await attempts()).toBe(1);
    const right = await (await gate.screen(sms(`YES ${CODE} ${PIN}`))).checked();
    expect(right).toMatchObject({ text: `YES ${CODE} XXXX`, pin: { status: 'ok' } });
  });

  it('a swapped `YES <PIN> <code>` keeps neither and counts no wrong PIN', async () => {
    const { gate, sms, attempts } = await setUp();
    const screened = await gate.screen(sms(`YES ${PIN} ${CODE}`));
    const queued = await screened.checked();
    expect(queued.text).toBe('YES XXXX XXXX');
    expect(queued.pin).toBeUndefined();
    expect(await attempts()).toBe(0);
  });

  it("masks an agent's ill-formed command and carries the grammar's verdict on what was typed", async () => {
    const { gate, sms } = await setUp();
    for (const [typed, kept] of [
      [`PIN ${PIN} 12`, 'PIN XXXX 12'],
      [`BAL${PIN}`, 'BALXXXX'],
      [`ELEC ${PIN}1 abc`, 'ELEC XXXX abc'],
    ]) {
      const queued = await (await gate.screen(sms(typed))).checked();
      expect(queued.text).toBe(kept);
      expect(queued.pin).toBeUndefined();
      expect(JSON.stringify(queued)).not.toContain(PIN);
    }
    // `ELEC 73511 abc` is refused for its amount; masked it would read as a bad meter number.
    const refused = await (await gate.screen(sms(`ELEC ${PIN}1 abc`))).checked();
    expect(refused.refused).toEqual({
      problem: { code: 'amount', command: 'ELEC', reason: 'notNumber' },
      language: 'en',
    });
  });

  it("leaves an agent's sale whole, and anyone else's message as it is", async () => {
    const { gate, sms } = await setUp();
    const sale = 'SELL ELEC 01234567890 1000 71234567';
    expect((await gate.screen(sms(sale))).sms).toEqual(sms(sale));
    expect((await gate.screen(sms(`NO ${CODE}`))).sms.text).toBe(`NO ${CODE}`);
    const stranger = sms('PIN 7351 12', '+26772222222');
    expect((await gate.screen(stranger)).sms).toEqual(stranger);
    // From anyone, a well-formed PIN command never goes on with the PIN.
    expect((await gate.screen(sms('BAL 7351', '+26772222222'))).sms.text).toBe('BAL XXXX');
  });
});
