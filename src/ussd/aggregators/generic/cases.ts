import {
  latestInputSteps,
  missingField,
  newSession,
  postHop,
  readConEnd,
  readJson,
  redeliveredStart,
  type AdapterCases,
  type DialRequest,
  type DialSession,
} from '../../wire-cases';
import { genericAdapter, parseGenericMapping } from './adapter';

/** A mapping like an operator would write for a latest-input JSON gateway. */
export const GENERIC_MAPPING = JSON.stringify({
  sessionId: 'session',
  msisdn: 'from',
  serviceCode: 'code',
  text: 'input',
  input: 'latest',
  newSession: { field: 'type', equals: 'begin' },
  end: { field: 'type', equals: 'abort' },
  reply: { text: 'screen', end: 'close', endValue: true, continueValue: false, echo: ['session'] },
});

const hop = { session: 'gen-1', from: '26771234567', code: '*384#', input: '*384#', type: 'begin' };

export const genericCases: AdapterCases = {
  adapter: genericAdapter(parseGenericMapping(GENERIC_MAPPING)),
  parse: [
    newSession({ body: hop }, { sessionId: 'gen-1', msisdn: '26771234567', serviceCode: '*384#' }),
    ...latestInputSteps((input) => ({ body: { ...hop, type: 'continue', input } })),
    {
      name: 'end signal',
      kind: 'end',
      request: { body: { ...hop, type: 'abort' } },
      expect: { end: { sessionId: 'gen-1', status: 'incomplete' } },
    },
    redeliveredStart({ body: hop }, 'gen-1', 'begin'),
    missingField('session', { body: { ...hop, session: undefined } }),
  ],
  reply: [
    {
      name: 'continue',
      reply: { text: 'Menu', end: false },
      hop: { body: { ...hop, type: 'continue', input: '1' } },
      expect: { body: { session: 'gen-1', screen: 'Menu', close: false } },
    },
    {
      name: 'end',
      reply: { text: 'Bye', end: true },
      hop: { body: hop },
      expect: { body: { session: 'gen-1', screen: 'Bye', close: true } },
    },
  ],
  dialer: {
    start: (s) => postHop({ ...hop, session: s.id, from: s.msisdn }),
    next: (s, input) => postHop({ ...hop, session: s.id, from: s.msisdn, type: 'continue', input }),
    hangUp: (s) => postHop({ ...hop, session: s.id, from: s.msisdn, type: 'abort' }),
    read: readJson('screen', 'close'),
  },
};

/**
 * A mapping an operator writes for an Advanta-style gateway (harrykerry/advanta-africa-apis
 * `docs/ussd-api/README.md`: GET `SESSIONID`, `USSDCODE=*415#`, `MSISDN`, `INPUT` the whole dial
 * string `*415*33*1#`; a `CON`/`END` reply): no code needed to onboard it.
 */
export const DIAL_STRING_MAPPING = JSON.stringify({
  sessionId: 'SESSIONID',
  msisdn: 'MSISDN',
  serviceCode: 'USSDCODE',
  text: 'INPUT',
  input: 'cumulative',
  strip: { code: true, hash: true },
  reply: { format: 'conEnd' },
});

/** Speaks {@link DIAL_STRING_MAPPING}'s gateway: GET, the dial string growing at each hop. */
export const dialStringDialer = {
  start: (s: DialSession): DialRequest => dialString(s, []),
  dialExtension: (s: DialSession, extension: string): DialRequest => dialString(s, [extension]),
  next: (s: DialSession, input: string): DialRequest => dialString(s, [...s.inputs, input]),
  read: readConEnd,
};

function dialString(s: DialSession, inputs: string[]): DialRequest {
  const code = s.serviceCode.replace(/^\*+/, '').replace(/#$/, '');
  const query = {
    SESSIONID: s.id,
    USSDCODE: `*${code}#`,
    MSISDN: s.msisdn,
    INPUT: `*${[code, ...inputs].join('*')}#`,
  };
  return { method: 'GET', path: `?${new URLSearchParams(query).toString()}` };
}
