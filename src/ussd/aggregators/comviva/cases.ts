import { continueAndEnd, latestInputSteps, missingField, type AdapterCases } from '../../wire-cases';
import { comvivaAdapter } from './adapter';

/**
 * Source: praekeltfoundation/vumi `vumi/transports/airtel/airtel.py` ("Client implementation
 * for the Comviva Flares HTTP Pull API. Based on Flares 1.5.0, document version 1.2.0") and
 * `tests/test_airtel.py`, whose requests these are (MSC `msc` in the tests, the caller's
 * network address in the cleanup "as seen in production").
 */
const q = { SessionID: 'session-id', MSISDN: '27761234567', MSC: 'msc', input: '121' };
const adapter = comvivaAdapter();
const locked = comvivaAdapter({ credentials: { userid: 'gw', password: 'flares-secret-1234' } });
const shared = comvivaAdapter({ serviceCode: '*384*33#' });

/** The short code a dial starts with (`*384*1#` → `384`): Flares sends it without `*` and `#`. */
const base = (code: string) => code.replace(/^\*+/, '').split(/[*#]/)[0];
const query = (params: Record<string, string>) => `?${new URLSearchParams(params).toString()}`;
const get = (params: Record<string, string | undefined>) => ({ method: 'GET', query: params });

export const comvivaCases: AdapterCases = {
  adapter,
  parse: [
    {
      name: 'new session: the code without * and # (test_inbound_begin: input=121); MSC is no service code',
      kind: 'new',
      request: get(q),
      expect: {
        hop: {
          sessionId: 'session-id',
          msisdn: '27761234567',
          serviceCode: '*121#',
          text: { kind: 'latest', value: '121' },
        },
      },
    },
    {
      name: 'new session on a sub-code: input=167*7*1 is *167*7*1#, a shortcut 7*1 (test_to_addr_handling)',
      kind: 'new',
      request: get({ ...q, input: '167*7*1' }),
      expect: { hop: { serviceCode: '*167#', dialled: '7*1', text: { kind: 'latest', value: '167*7*1' } } },
    },
    ...latestInputSteps((input) => get({ ...q, input })),
    {
      name: 'typed stars are the input as sent (test_submitting_asterisks_as_values)',
      kind: 'continuation',
      request: get({ ...q, input: '****' }),
      expect: { hop: { text: { kind: 'latest', value: '****' } } },
    },
    {
      name: 'the URL hit again with an empty input is the hop re-sent (test_hitting_url_twice_without_content)',
      kind: 'redelivery',
      request: get({ ...q, input: '' }),
      expect: { hop: { repeat: true, text: { kind: 'latest', value: '' } } },
    },
    {
      name: 're-delivery: the same input again (no sequence: the engine compares it with the last)',
      kind: 'redelivery',
      request: get({ ...q, input: '1' }),
      expect: { hop: { isNew: false, text: { kind: 'latest', value: '1' } } },
    },
    {
      name: 'end: the cleanup as seen in production (error=523, MSC an address) is an ordinary end',
      kind: 'end',
      request: get({
        msisdn: '254712345678',
        clean: 'cleann',
        error: '523',
        SessionID: '13697502734175597',
        MSC: '254712345678',
      }),
      expect: { end: { sessionId: '13697502734175597', msisdn: '254712345678', status: 'incomplete' } },
    },
    {
      name: 'end: clean-session with error=522 (test_cleanup_session) is an ordinary end',
      kind: 'end',
      request: get({ SessionID: 'session-id', msisdn: '27761234567', clean: 'clean-session', error: '522' }),
      expect: { end: { sessionId: 'session-id', msisdn: '27761234567', status: 'incomplete' } },
    },
    {
      name: 'end with another error: failed (still resumable)',
      kind: 'end',
      request: get({ SessionID: 'session-id', msisdn: '27761234567', clean: 'x', error: '34' }),
      expect: { end: { status: 'failed' } },
    },
    missingField('SessionID', get({ ...q, SessionID: undefined })),
    missingField('msisdn or MSISDN', get({ SessionID: 'session-id', clean: 'clean-session', error: '522' })),
  ],
  // Freeflow FC continues, FB ends.
  reply: continueAndEnd((body, end) => ({
    headers: { Freeflow: end ? 'FB' : 'FC', charge: 'N', amount: '0' },
    body,
  })),
  dialer: {
    start: (s) => ({
      method: 'GET',
      path: query({ SessionID: s.id, MSISDN: s.msisdn, MSC: 'msc', input: base(s.serviceCode) }),
    }),
    dialExtension: (s, extension) => ({
      method: 'GET',
      path: query({
        SessionID: s.id,
        MSISDN: s.msisdn,
        MSC: 'msc',
        input: `${base(s.serviceCode)}*${extension}`,
      }),
    }),
    next: (s, input) => ({
      method: 'GET',
      path: query({ SessionID: s.id, MSISDN: s.msisdn, MSC: 'msc', input }),
    }),
    hangUp: (s) => ({
      method: 'GET',
      path: query({ SessionID: s.id, msisdn: s.msisdn, clean: 'clean-session', error: '522' }),
    }),
    read: (body, headers) => ({ text: body, end: headers.freeflow === 'FB' }),
  },
};

/** With credentials configured: checked on every request. */
export const comvivaCredentialCases = {
  adapter: locked,
  good: { method: 'GET', query: { ...q, userid: 'gw', password: 'flares-secret-1234' } },
  bad: { method: 'GET', query: { ...q, userid: 'gw', password: 'wrong' } },
};

/** With `USSD_COMVIVA_SERVICE_CODE` on a shared code: the shortcut is what follows it. */
export const comvivaSharedCodeCases = {
  adapter: shared,
  cases: [
    [get({ ...q, input: '384*33' }), { serviceCode: '*384*33#' }],
    [get({ ...q, input: '384*33*1*01234567890' }), { serviceCode: '*384*33#', dialled: '1*01234567890' }],
    [get({ ...q, input: '384*1' }), { serviceCode: '*384#', dialled: '1' }],
  ] as const,
};
