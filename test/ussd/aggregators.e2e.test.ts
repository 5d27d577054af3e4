import axios from 'axios';
import { ALL_ADAPTER_CASES } from './adapter-cases';
import { cellulantCases } from '../../src/ussd/aggregators/cellulant/cases';
import { comvivaCases } from '../../src/ussd/aggregators/comviva/cases';
import { GENERIC_MAPPING } from '../../src/ussd/aggregators/generic/cases';
import { advantaDialer, safaricomCases } from '../../src/ussd/aggregators/safaricom/cases';
import {
  newDialSession,
  type AdapterCases,
  type DialRequest,
  type DialSession,
} from '../../src/ussd/wire-cases';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { ledger, newPhone, startTestGateway, waitForSms } from '../e2e/harness';

/**
 * One table over every aggregator: a whole electricity purchase spoken in the aggregator's own
 * wire format over HTTP against the gateway and the sandbox, ending with the token SMS and
 * exactly one debit; and a hang-up mid-way that ends the dialogue resumably.
 */

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startTestGateway({ USSD_GENERIC_MAPPING: GENERIC_MAPPING });
});
afterAll(() => gateway.close());

/** Dials (or sends `first` instead of the format's start), then types `inputs`; the screens. */
async function play(cases: AdapterCases, session: DialSession, inputs: string[], first?: DialRequest) {
  const { dialer } = cases;
  const send = async (r: DialRequest) => {
    const response = await axios.request({
      method: r.method,
      url: `${gateway.url}/ussd/${cases.adapter.name}${r.path}`,
      data: r.form ? new URLSearchParams(r.body as Record<string, string>).toString() : r.body,
      headers: r.form ? { 'content-type': 'application/x-www-form-urlencoded' } : undefined,
      responseType: 'text',
      transformResponse: [(d: unknown) => d],
    });
    session.hops += 1;
    return dialer.read(String(response.data), response.headers as Record<string, string>);
  };
  const screens = [await send(first ?? dialer.start(session))];
  for (const input of inputs) {
    screens.push(await send(dialer.next(session, input)));
    session.inputs.push(input);
  }
  return screens;
}

const debits = async (meter: string) =>
  (await ledger(gateway.purchaseServiceUrl)).filter(
    (r) => r.subscriber_identifier === meter && r.debited_minor > 0,
  ).length;

describe.each(ALL_ADAPTER_CASES.map((c) => [c.adapter.name, c] as const))('%s', (name, cases) => {
  it('buys electricity: the token SMS and exactly one debit', async () => {
    const phone = newPhone();
    const meter = TEST_METERS.active;
    const before = await debits(meter);
    const screens = await play(cases, newDialSession(`buy-${name}-${phone}`, phone), [
      '1',
      meter,
      '1', // Send the token to: This phone
      '100',
      '1',
    ]);
    expect(screens.slice(0, 5).map((s) => s.end)).toEqual([false, false, false, false, false]);
    expect(screens[2].text).toMatch(/^Send the token to:/);
    expect(screens[4].text).toMatch(/Total: BWP/);
    expect(screens[5].end).toBe(true);
    // Every screen within the aggregator's limit (Nalo's documented 120 by default).
    const limit = cases.adapter.screenLimit ?? 182;
    for (const screen of screens) expect(screen.text.length).toBeLessThanOrEqual(limit);
    // The quote is longer than 120 at the gateway's 182: Nalo's limit binds.
    if (cases.adapter.screenLimit === undefined) expect(screens[4].text.length).toBeGreaterThan(120);
    expect((await waitForSms(gateway, phone, 1))[0].message).toMatch(/Token: /);
    expect(await debits(meter)).toBe(before + 1);
  });

  const { dialExtension } = cases.dialer;
  // Formats that pass a one-dial shortcut (src/ussd/README.md, One-dial shortcuts).
  if (dialExtension)
    it('a sub-code dial (*384*1#, *384*1*<meter>#) opens on the screen its shortcut names, and goes on from there', async () => {
      const phone = newPhone();
      const meter = TEST_METERS.active;
      // *384*1#: Electricity → its meter prompt; the meter typed next is read as the meter.
      const one = newDialSession(`sub-${name}-${phone}`, phone, '*384#');
      const screens = await play(cases, one, [meter], dialExtension(one, '1'));
      expect(screens[0]).toEqual({ end: false, text: expect.stringMatching(/^Enter meter number/) });
      expect(screens[1]).toMatchObject({ end: false, text: expect.stringMatching(/^Send the token to:/) });
      // *384*1*<meter>#: the meter read from the dial, the amount asked (a shortcut's token is the caller's).
      const two = newDialSession(`sub2-${name}-${phone}`, phone, '*384#');
      two.inputs.push('1', meter);
      const [amount] = await play(cases, two, [], dialExtension(two, `1*${meter}`));
      expect(amount).toMatchObject({ end: false, text: expect.stringMatching(/amount/i) });
      expect(amount.text).not.toMatch(/Send the token to/);
    });

  const hangUp = cases.dialer.hangUp;
  it(
    hangUp
      ? 'a hang-up mid-way ends the dialogue: a late hop cannot revive it, the next dial resumes it'
      : 'a dialogue abandoned mid-way (this aggregator sends no end signal) is offered for resume at the next dial',
    async () => {
      const phone = newPhone();
      const first = newDialSession(`drop-${name}-${phone}`, phone);
      await play(cases, first, ['1', TEST_METERS.active, '1']);
      if (hangUp) {
        const r = hangUp(first);
        const ended = await axios.request({
          method: r.method,
          url: `${gateway.url}/ussd/${name}${r.path}`,
          data: r.form ? new URLSearchParams(r.body as Record<string, string>).toString() : r.body,
          headers: r.form ? { 'content-type': 'application/x-www-form-urlencoded' } : undefined,
        });
        expect(ended.status).toBe(200);
        // A late hop of the ended session never resurrects it (nor spoils the resume below).
        const late = await play(cases, first, [], cases.dialer.next(first, '100'));
        expect(late[0]).toEqual({ text: 'This session has ended. Please dial again.', end: true });
      }
      const again = await play(cases, newDialSession(`back-${name}-${phone}`, phone), ['1']);
      expect(again[0].text).toMatch(/continue/i);
      // Resumed where it was dropped: the amount prompt.
      expect(again[1]).toMatchObject({ end: false, text: expect.stringMatching(/amount/i) });
    },
  );
});

describe('as the aggregators send them', () => {
  it('Advanta-style dial strings over the safaricom route (USSDCODE=*384#, INPUT=*384*1*…#): a whole purchase', async () => {
    const phone = newPhone();
    const meter = TEST_METERS.active;
    const before = await debits(meter);
    const advanta = { ...safaricomCases, dialer: { ...safaricomCases.dialer, ...advantaDialer } };
    const screens = await play(advanta, newDialSession(`adv-${phone}`, phone), ['1', meter, '1', '100', '1']);
    expect(screens[0].text).toMatch(/^Welcome!/);
    expect(screens[1].text).toMatch(/^Enter meter number/);
    expect(screens[2].text).toMatch(/^Send the token to:/);
    expect(screens[4].text).toMatch(/Total: BWP/);
    expect(screens[5].end).toBe(true);
    expect((await waitForSms(gateway, phone, 1))[0].message).toMatch(/Token: /);
    expect(await debits(meter)).toBe(before + 1);
  });

  it('Comviva: the URL hit again with an empty input answers the same screen; the next input reads on it', async () => {
    const phone = newPhone();
    const session = newDialSession(`cv-empty-${phone}`, phone, '*384#');
    const [menu, prompt, again] = await play(comvivaCases, session, ['1', '']);
    expect(menu.text).toMatch(/^Welcome!/);
    expect(prompt.text).toMatch(/^Enter meter number/);
    expect(again).toEqual(prompt);
    const [next] = await play(
      comvivaCases,
      session,
      [],
      comvivaCases.dialer.next(session, TEST_METERS.active),
    );
    expect(next.text).toMatch(/^Send the token to:/);
  });

  it('Hubtel: every reply carries the SessionId and a Label', async () => {
    const id = `hub-label-${Date.now()}`;
    const response = await axios.post(`${gateway.url}/ussd/hubtel`, {
      SessionId: id,
      Mobile: newPhone(),
      ServiceCode: '384',
      Type: 'Initiation',
      Message: '*384#',
      Operator: 'mtn',
      Sequence: 1,
      ClientState: '',
      Platform: 'USSD',
    });
    expect(response.data).toMatchObject({
      SessionId: id,
      Label: 'Welcome! Choose a service:',
      Type: 'Response',
    });
  });

  it('Cellulant: an ABORT is answered with an empty body and ends the dialogue', async () => {
    const phone = newPhone();
    const session = newDialSession(`cel-abort-${phone}`, phone, '*384#');
    await play(cellulantCases, session, ['1']);
    const form = { MSISDN: phone, sessionID: session.id, opCode: '', INPUT: '', ABORT: '2' };
    const aborted = await axios.post(`${gateway.url}/ussd/cellulant`, new URLSearchParams(form).toString(), {
      responseType: 'text',
      transformResponse: [(d: unknown) => d],
    });
    expect({ status: aborted.status, body: aborted.data }).toEqual({ status: 200, body: '' });
    const [late] = await play(
      cellulantCases,
      session,
      [],
      cellulantCases.dialer.next(session, TEST_METERS.active),
    );
    expect(late).toEqual({ text: 'This session has ended. Please dial again.', end: true });
  });
});
