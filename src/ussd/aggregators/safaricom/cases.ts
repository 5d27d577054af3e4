import {
  continueAndEnd,
  missingField,
  NO_END_NOTIFICATION,
  readConEnd,
  type AdapterCases,
  type DialRequest,
} from '../../wire-cases';
import { safaricomAdapter } from './adapter';

/**
 * Sources: Safaricom direct — praekeltfoundation/vumi `vumi/transports/safaricom/safaricom.py`
 * and `tests/test_safaricom.py` (a GET query `ORIG`, `DEST` digits only, `SESSION_ID`,
 * `USSD_PARAMS`; the first hop carries what was dialled after the code). Advanta style —
 * harrykerry/advanta-africa-apis `docs/ussd-api/README.md` (= developers.fastmessage.co.ke,
 * developers.speedocom.online): GET `SESSIONID`, `USSDCODE=*415#`, `MSISDN`, `INPUT` the whole
 * dial string, appended to at each hop (`*415*33*1#`).
 */

/** vumi's `mk_request` defaults. */
const vumi = { ORIG: '27761234567', DEST: '167', SESSION_ID: 'session-id', USSD_PARAMS: '' };
/** Advanta's callback URL template, with its sample code. */
const advanta = { SESSIONID: 'adv-1', USSDCODE: '*415#', MSISDN: '254712345678', INPUT: '*415#' };

const get = (query: Record<string, string | undefined>) => ({ method: 'GET', query });
const dial = (query: Record<string, string>): DialRequest => ({
  method: 'GET',
  path: `?${new URLSearchParams(query).toString()}`,
});

export const safaricomCases: AdapterCases = {
  adapter: safaricomAdapter,
  noEndSignal: NO_END_NOTIFICATION,
  parse: [
    {
      name: 'new session: the base code, USSD_PARAMS empty (vumi test_submitting_with_base_code_empty_ussd_params)',
      kind: 'new',
      request: get(vumi),
      expect: {
        hop: {
          sessionId: 'session-id',
          msisdn: '27761234567',
          serviceCode: '167',
          isNew: true,
          text: { kind: 'cumulative', value: '' },
        },
      },
    },
    {
      name: 'new session on a sub-code: *167*7# arrives as USSD_PARAMS=7, a shortcut (vumi test_inbound_begin)',
      kind: 'new',
      request: get({ ...vumi, USSD_PARAMS: '7' }),
      expect: { hop: { isNew: false, dialled: '7', text: { kind: 'cumulative', value: '7' } } },
    },
    {
      name: 'new session on *167*7*1#: USSD_PARAMS=7*1 (vumi test_to_addr_handling)',
      kind: 'new',
      request: get({ ...vumi, USSD_PARAMS: '7*1' }),
      expect: { hop: { dialled: '7*1', text: { kind: 'cumulative', value: '7*1' } } },
    },
    {
      name: 'continuation after the sub-code: 7*1*a (vumi test_to_addr_handling)',
      kind: 'continuation',
      request: get({ ...vumi, USSD_PARAMS: '7*1*a' }),
      expect: { hop: { text: { kind: 'cumulative', value: '7*1*a' } } },
    },
    {
      name: 'continuation: the whole history, typed stars kept (vumi test_submitting_asterisks_as_values)',
      kind: 'continuation',
      request: get({ ...vumi, USSD_PARAMS: '7*a*b*****' }),
      expect: { hop: { text: { kind: 'cumulative', value: '7*a*b*****' } } },
    },
    {
      name: 'back',
      kind: 'back',
      request: get({ ...vumi, USSD_PARAMS: '1*0' }),
      expect: { hop: { text: { kind: 'cumulative', value: '1*0' } } },
    },
    {
      name: 'a typed 384 on *384# is an input, not the code (no dial-string marks)',
      kind: 'continuation',
      request: get({ ...vumi, DEST: '384', USSD_PARAMS: '384' }),
      expect: { hop: { text: { kind: 'cumulative', value: '384' } } },
    },
    {
      name: 're-delivery: the same request again (vumi test_hitting_url_twice_without_content)',
      kind: 'redelivery',
      request: get({ ...vumi, USSD_PARAMS: '7*3' }),
      expect: { hop: { text: { kind: 'cumulative', value: '7*3' } } },
    },
    {
      name: 'Advanta: the first hop is the code itself (*415#)',
      kind: 'new',
      request: get(advanta),
      expect: {
        hop: {
          sessionId: 'adv-1',
          serviceCode: '*415#',
          isNew: true,
          text: { kind: 'cumulative', value: '' },
        },
      },
    },
    {
      name: 'Advanta: *415*33*1# (the docs sample) → the code and # stripped',
      kind: 'continuation',
      request: get({ ...advanta, INPUT: '*415*33*1#' }),
      expect: { hop: { text: { kind: 'cumulative', value: '33*1' } } },
    },
    {
      name: 'Advanta spelled without marks on the code (USSDCODE=415, as POST form)',
      kind: 'continuation',
      request: { body: { ...advanta, USSDCODE: '415', INPUT: '*415*1*01234567890#' } },
      expect: { hop: { text: { kind: 'cumulative', value: '1*01234567890' } } },
    },
    {
      name: 'a code in front of the history (*384#*1) is dropped too',
      kind: 'continuation',
      request: get({ ...vumi, DEST: '*384#', USSD_PARAMS: '*384#*1' }),
      expect: { hop: { text: { kind: 'cumulative', value: '1' } } },
    },
    {
      name: 'missing DEST is no error: the code is only kept (vumi answers 400; the input still reads)',
      kind: 'continuation',
      request: get({ ORIG: '27761234567', SESSION_ID: 'session-id', USSD_PARAMS: '7*a' }),
      expect: { hop: { serviceCode: '', text: { kind: 'cumulative', value: '7*a' } } },
    },
    missingField('MSISDN or ORIG', get({ ...vumi, ORIG: undefined })),
    missingField('SESSION_ID or SESSIONID', get({ ...vumi, SESSION_ID: undefined })),
  ],
  reply: continueAndEnd((text, end) => ({ body: `${end ? 'END' : 'CON'} ${text}` })),
  dialer: {
    start: (s) => dial({ ...vumi, SESSION_ID: s.id, ORIG: s.msisdn, DEST: s.serviceCode }),
    dialExtension: (s, extension) =>
      dial({ ...vumi, SESSION_ID: s.id, ORIG: s.msisdn, DEST: s.serviceCode, USSD_PARAMS: extension }),
    next: (s, input) =>
      dial({
        ...vumi,
        SESSION_ID: s.id,
        ORIG: s.msisdn,
        DEST: s.serviceCode,
        USSD_PARAMS: [...s.inputs, input].join('*'),
      }),
    read: readConEnd,
  },
};

/** Advanta's template spoken whole: the dial string grows at each hop, code and `#` included. */
export const advantaDialer = {
  start: (s: { id: string; msisdn: string }) =>
    dial({ SESSIONID: s.id, USSDCODE: '*384#', MSISDN: s.msisdn, INPUT: '*384#' }),
  next: (s: { id: string; msisdn: string; inputs: string[] }, input: string) =>
    dial({
      SESSIONID: s.id,
      USSDCODE: '*384#',
      MSISDN: s.msisdn,
      INPUT: `*384*${[...s.inputs, input].join('*')}#`,
    }),
  read: readConEnd,
};
