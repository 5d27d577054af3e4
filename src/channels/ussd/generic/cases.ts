import {
  latestInputSteps,
  missingField,
  newSession,
  postHop,
  readJson,
  redeliveredStart,
  type AdapterCases,
} from '../wire-cases';
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
