import {
  continueAndEnd,
  missingField,
  newSession,
  NO_END_NOTIFICATION,
  postHop,
  readConEnd,
  type AdapterCases,
} from '../wire-cases';
import { safaricomAdapter } from './adapter';

const hop = {
  SESSION_ID: 'saf-1',
  MSISDN: '254712345678',
  SERVICE_CODE: '*384#',
  DEST: '*384#',
  USSD_PARAMS: '',
};

export const safaricomCases: AdapterCases = {
  adapter: safaricomAdapter,
  noEndSignal: NO_END_NOTIFICATION,
  parse: [
    newSession(
      { body: hop },
      { sessionId: 'saf-1', msisdn: '254712345678', text: { kind: 'cumulative', value: '' } },
    ),
    {
      name: 'continuation (cumulative, ORIG/INPUT/SESSIONID spelling)',
      kind: 'continuation',
      request: { body: { SESSIONID: 'saf-1', ORIG: '254712345678', USSDCODE: '*384#', INPUT: '1*2' } },
      expect: { hop: { isNew: false, serviceCode: '*384#', text: { kind: 'cumulative', value: '1*2' } } },
    },
    {
      name: 'back',
      kind: 'back',
      request: { body: { ...hop, USSD_PARAMS: '1*0' } },
      expect: { hop: { text: { kind: 'cumulative', value: '1*0' } } },
    },
    {
      name: 'the dialled code in front of the inputs is dropped',
      kind: 'continuation',
      request: { method: 'GET', query: { ...hop, USSD_PARAMS: '*384#*1' } },
      expect: { hop: { text: { kind: 'cumulative', value: '1' } } },
    },
    {
      name: 're-delivered start (Safaricom repeats it): the empty text again',
      kind: 'redelivery',
      request: { body: hop },
      expect: { hop: { isNew: true, text: { kind: 'cumulative', value: '' } } },
    },
    missingField('MSISDN or ORIG', { body: { ...hop, MSISDN: undefined } }),
  ],
  reply: continueAndEnd((text, end) => ({ body: `${end ? 'END' : 'CON'} ${text}` })),
  dialer: {
    start: (s) => postHop({ ...hop, SESSION_ID: s.id, MSISDN: s.msisdn }, true),
    next: (s, input) =>
      postHop(
        { ...hop, SESSION_ID: s.id, MSISDN: s.msisdn, USSD_PARAMS: [...s.inputs, input].join('*') },
        true,
      ),
    read: readConEnd,
  },
};
