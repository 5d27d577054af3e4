import type { AdapterCases } from '../wire-cases';
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
    {
      name: 'new session',
      kind: 'new',
      request: { body: hop },
      expect: { hop: { sessionId: 'gen-1', msisdn: '26771234567', isNew: true, serviceCode: '*384#' } },
    },
    {
      name: 'continuation (latest input)',
      kind: 'continuation',
      request: { body: { ...hop, type: 'continue', input: '1' } },
      expect: { hop: { isNew: false, text: { kind: 'latest', value: '1' } } },
    },
    {
      name: 'back',
      kind: 'back',
      request: { body: { ...hop, type: 'continue', input: '0' } },
      expect: { hop: { text: { kind: 'latest', value: '0' } } },
    },
    {
      name: 'end signal',
      kind: 'end',
      request: { body: { ...hop, type: 'abort' } },
      expect: { end: { sessionId: 'gen-1', status: 'incomplete' } },
    },
    {
      name: 're-delivered begin is flagged new again',
      kind: 'redelivery',
      request: { body: hop },
      expect: { hop: { sessionId: 'gen-1', isNew: true } },
    },
    {
      name: 'malformed: no session field',
      kind: 'malformed',
      request: { body: { ...hop, session: undefined } },
      expect: { error: 'missing field: session' },
    },
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
    start: (s) => ({ method: 'POST', path: '', body: { ...hop, session: s.id, from: s.msisdn } }),
    next: (s, input) => ({
      method: 'POST',
      path: '',
      body: { ...hop, session: s.id, from: s.msisdn, type: 'continue', input },
    }),
    hangUp: (s) => ({
      method: 'POST',
      path: '',
      body: { ...hop, session: s.id, from: s.msisdn, type: 'abort' },
    }),
    read: (body) => {
      const r = JSON.parse(body) as { screen: string; close: boolean };
      return { text: r.screen, end: r.close };
    },
  },
};
