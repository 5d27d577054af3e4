import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { startTestGateway } from '../e2e/harness';

/** Per-aggregator secret, allow-list and screen limit, and the start refusing a bad setting. */

let gateway: Gateway;
const SECRET = 'hubtel-own-secret-0123456789';

beforeAll(async () => {
  gateway = await startTestGateway({
    USSD_CALLBACK_SECRET_HUBTEL: SECRET,
    USSD_ALLOWED_IPS_NALO: '10.0.0.0/8',
  });
});
afterAll(() => gateway.close());

const hubtel = {
  SessionId: 'set-1',
  Mobile: '26771234567',
  ServiceCode: '384',
  Type: 'Initiation',
  Message: '*384#',
  Sequence: 1,
};

it("checks an aggregator's own secret and allow-list, and leaves the others as configured", async () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    axios.post(`${gateway.url}/ussd/${path}`, body, { headers, validateStatus: () => true });
  expect((await post('hubtel', hubtel)).status).toBe(401);
  expect((await post('hubtel', hubtel, { 'x-callback-key': 'wrong-secret-0123456789' })).status).toBe(401);
  expect((await post('hubtel', hubtel, { 'x-callback-key': SECRET })).status).toBe(200);
  expect(
    (
      await post('nalo', {
        USERID: 'u',
        MSISDN: '26771234567',
        USERDATA: '*384#',
        MSGTYPE: true,
        SESSIONID: 'n',
      })
    ).status,
  ).toBe(403);
  expect(
    (
      await post('arkesel', {
        sessionID: 'a',
        userID: 'u',
        newSession: true,
        msisdn: '26771234567',
        userData: '*384#',
      })
    ).status,
  ).toBe(200);
});

it('refuses to start with an unknown aggregator name or a bad generic mapping, in one line', async () => {
  await expect(startTestGateway({ USSD_SCREEN_LIMIT_FOO: '160' })).rejects.toThrow(
    /USSD_\*_FOO: no aggregator "foo"/,
  );
  await expect(startTestGateway({ USSD_SCREEN_LIMIT_HUBTEL: '20' })).rejects.toThrow(
    /USSD_SCREEN_LIMIT_HUBTEL must be/,
  );
  await expect(startTestGateway({ USSD_GENERIC_MAPPING: '{"sessionId":"s"}' })).rejects.toThrow(
    /^USSD_GENERIC_MAPPING: /,
  );
  await expect(startTestGateway({ USSD_GENERIC_MAPPING: 'not json' })).rejects.toThrow(
    /USSD_GENERIC_MAPPING: not JSON/,
  );
});
