import axios from 'axios';
import { DIAL_STRING_MAPPING, dialStringDialer } from '../../src/ussd/aggregators/generic/cases';
import { newDialSession, type DialRequest, type DialSession } from '../../src/ussd/wire-cases';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { ledger, newPhone, startTestGateway, waitForSms } from '../e2e/harness';

/**
 * The generic route under a mapping that is not JSON (aggregators.e2e.test.ts plays the JSON
 * one): an Advanta-style gateway onboarded by configuration alone — a GET query whose `INPUT` is
 * the whole dial string (`*384*1*01234567890#`), a `CON`/`END` text reply.
 */

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startTestGateway({ USSD_GENERIC_MAPPING: DIAL_STRING_MAPPING });
});
afterAll(() => gateway.close());

async function play(session: DialSession, inputs: string[], first?: DialRequest) {
  const send = async (r: DialRequest) => {
    const response = await axios.request({
      method: r.method,
      url: `${gateway.url}/ussd/generic${r.path}`,
      responseType: 'text',
      transformResponse: [(d: unknown) => d],
    });
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    return dialStringDialer.read(String(response.data));
  };
  const screens = [await send(first ?? dialStringDialer.start(session))];
  for (const input of inputs) {
    screens.push(await send(dialStringDialer.next(session, input)));
    session.inputs.push(input);
  }
  return screens;
}

it('buys electricity over dial strings: the menu, every screen after it, the token SMS and one debit', async () => {
  const phone = newPhone();
  const meter = TEST_METERS.active;
  const debits = async () =>
    (await ledger(gateway.purchaseServiceUrl)).filter(
      (r) => r.subscriber_identifier === meter && r.debited_minor > 0,
    ).length;
  const before = await debits();
  const screens = await play(newDialSession(`gds-${phone}`, phone, '*384#'), ['1', meter, '1', '100', '1']);
  expect(screens[0].text).toMatch(/^Welcome!/);
  expect(screens[1].text).toMatch(/^Enter meter number/);
  expect(screens[2].text).toMatch(/^Send the token to:/);
  expect(screens[4].text).toMatch(/Total: BWP/);
  expect(screens.map((s) => s.end)).toEqual([false, false, false, false, false, true]);
  expect((await waitForSms(gateway, phone, 1))[0].message).toMatch(/Token: /);
  expect(await debits()).toBe(before + 1);
});

it('a sub-code dial (*384*1#) opens on the meter prompt, and the dialogue goes on from it', async () => {
  const phone = newPhone();
  const session = newDialSession(`gds-sub-${phone}`, phone, '*384#');
  const first = dialStringDialer.dialExtension(session, '1');
  session.inputs.push('1');
  const [prompt, next] = await play(session, [TEST_METERS.active], first);
  expect(prompt).toEqual({ end: false, text: expect.stringMatching(/^Enter meter number/) });
  expect(next.text).toMatch(/^Send the token to:/);
});
