import axios from 'axios';
import { ALL_ADAPTER_CASES } from './adapter-cases';
import { GENERIC_MAPPING } from '../../src/channels/ussd/generic/cases';
import {
  newDialSession,
  type AdapterCases,
  type DialRequest,
  type DialSession,
} from '../../src/channels/ussd/wire-cases';
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
    expect((await waitForSms(gateway, phone, 1))[0].message).toMatch(/Token: /);
    expect(await debits(meter)).toBe(before + 1);
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
