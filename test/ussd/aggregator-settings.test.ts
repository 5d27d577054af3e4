import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { newPhone, startTestGateway } from '../e2e/harness';

/**
 * Per-aggregator secret, allow-list and screen limit, Comviva's own credentials, and the start
 * refusing a bad setting.
 */

let gateway: Gateway;
const SECRET = 'hubtel-own-secret-0123456789';
const COMVIVA_PASSWORD = 'flares-password-0123';

beforeAll(async () => {
  gateway = await startTestGateway({
    USSD_CALLBACK_SECRET_HUBTEL: SECRET,
    USSD_ALLOWED_IPS_NALO: '10.0.0.0/8',
    USSD_SCREEN_LIMIT_ARKESEL: '60',
    USSD_COMVIVA_USERID: 'flares',
    USSD_COMVIVA_PASSWORD: COMVIVA_PASSWORD,
    USSD_COMVIVA_SERVICE_CODE: '*384*33#',
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

it("cuts an aggregator's screens at its own limit and leaves the others at the default", async () => {
  const dial = async (name: string, body: Record<string, unknown>) =>
    (await axios.post(`${gateway.url}/ussd/${name}`, body, { responseType: 'text' })).data as string;
  const arkesel = JSON.parse(
    await dial('arkesel', {
      sessionID: `lim-a-${Date.now()}`,
      userID: 'u',
      newSession: true,
      msisdn: newPhone(),
      userData: '*384#',
    }),
  ) as { message: string };
  const cellulant = (
    await dial('cellulant', {
      MSISDN: newPhone(),
      sessionID: `lim-c-${Date.now()}`,
      opCode: 'BEG',
      INPUT: '*384#',
    })
  ).split('|')[1];
  // The same menu: paged at 60 characters for Arkesel, whole at 182 for Cellulant.
  expect(cellulant.length).toBeGreaterThan(60);
  expect(cellulant).not.toMatch(/^98 /m);
  expect(arkesel.message.length).toBeLessThanOrEqual(60);
  expect(arkesel.message).toMatch(/^98 /m);
  expect(cellulant.startsWith(arkesel.message.split('\n')[0])).toBe(true);
});

it('checks Comviva userid and password on hops and on the end call when they are configured', async () => {
  const get = (params: Record<string, string>) =>
    axios.get(`${gateway.url}/ussd/comviva?${new URLSearchParams(params).toString()}`, {
      validateStatus: () => true,
      responseType: 'text',
    });
  const hop = { SessionID: `cv-${Date.now()}`, MSISDN: newPhone(), MSC: '384', input: '384' };
  const wrong = await get({ ...hop, userid: 'flares', password: 'not-the-password' });
  expect(wrong.status).toBe(401);
  expect(wrong.data).toBe('wrong userid or password');
  expect((await get(hop)).status).toBe(401);
  const right = await get({ ...hop, userid: 'flares', password: COMVIVA_PASSWORD });
  expect(right.status).toBe(200);
  expect(right.headers.freeflow).toBe('FC');
  const end = { SessionID: hop.SessionID, msisdn: hop.MSISDN, clean: 'clean-up', error: '0' };
  expect((await get(end)).status).toBe(401);
  const ended = await get({ ...end, userid: 'flares', password: COMVIVA_PASSWORD });
  expect(ended.status).toBe(200);
  expect(ended.data).toBe('');
});

it('Comviva on a shared code (USSD_COMVIVA_SERVICE_CODE=*384*33#): the groups after it are the shortcut', async () => {
  const dial = async (input: string) =>
    (
      await axios.get(
        `${gateway.url}/ussd/comviva?${new URLSearchParams({
          SessionID: `cvs-${input.replace(/\*/g, '-')}-${Date.now()}`,
          MSISDN: newPhone(),
          MSC: '26770000000',
          input,
          userid: 'flares',
          password: COMVIVA_PASSWORD,
        }).toString()}`,
        { responseType: 'text' },
      )
    ).data as string;
  expect(await dial('384*33')).toMatch(/^Welcome!/);
  expect(await dial('384*33*1')).toMatch(/^Enter meter number/);
});

it('refuses to start with an unknown aggregator name or a bad generic mapping, in one line', async () => {
  await expect(startTestGateway({ USSD_SCREEN_LIMIT_FOO: '160' })).rejects.toThrow(
    /USSD_\*_FOO: no aggregator "foo"/,
  );
  await expect(startTestGateway({ USSD_SCREEN_LIMIT_HUBTEL: '20' })).rejects.toThrow(
    /USSD_SCREEN_LIMIT_HUBTEL must be/,
  );
  await expect(startTestGateway({ USSD_COMVIVA_SERVICE_CODE: '384#1' })).rejects.toThrow(
    /USSD_COMVIVA_SERVICE_CODE.*must be a USSD code/,
  );
  await expect(startTestGateway({ USSD_GENERIC_MAPPING: '{"sessionId":"s"}' })).rejects.toThrow(
    /^USSD_GENERIC_MAPPING: /,
  );
  await expect(startTestGateway({ USSD_GENERIC_MAPPING: 'not json' })).rejects.toThrow(
    /USSD_GENERIC_MAPPING: not JSON/,
  );
});
