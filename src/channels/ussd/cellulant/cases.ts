import type { AdapterCases } from '../wire-cases';
import { cellulantAdapter } from './adapter';

const hop = { MSISDN: '254712345678', sessionID: 'cel-1', opCode: 'BEG', INPUT: '*384#', ABORT: '0' };

export const cellulantCases: AdapterCases = {
  adapter: cellulantAdapter,
  parse: [
    {
      name: 'new session (BEG: the service code)',
      kind: 'new',
      request: { body: hop },
      expect: { hop: { sessionId: 'cel-1', msisdn: '254712345678', isNew: true, serviceCode: '*384#' } },
    },
    {
      name: 'continuation (latest input), also as GET',
      kind: 'continuation',
      request: { method: 'GET', query: { ...hop, opCode: '', INPUT: '1' } },
      expect: { hop: { isNew: false, text: { kind: 'latest', value: '1' } } },
    },
    {
      name: 'back',
      kind: 'back',
      request: { body: { ...hop, opCode: 'CON', INPUT: '0' } },
      expect: { hop: { text: { kind: 'latest', value: '0' } } },
    },
    {
      name: 'ABO ends the session on the hop URL',
      kind: 'end',
      request: { body: { ...hop, opCode: 'ABO' } },
      expect: { end: { sessionId: 'cel-1', status: 'incomplete' } },
    },
    {
      name: 're-delivered BEG is flagged new again',
      kind: 'redelivery',
      request: { body: hop },
      expect: { hop: { sessionId: 'cel-1', isNew: true } },
    },
    {
      name: 'malformed: no sessionID',
      kind: 'malformed',
      request: { body: { ...hop, sessionID: undefined } },
      expect: { error: 'missing field: sessionID' },
    },
  ],
  reply: [
    { name: 'continue', reply: { text: 'Menu', end: false }, expect: { body: '1|Menu|null|null|null|null' } },
    {
      name: 'end (a pipe in the text cannot break the format)',
      reply: { text: 'A|B', end: true },
      expect: { body: '1|A/B|null|null|end|null' },
    },
  ],
  dialer: {
    start: (s) => ({
      method: 'POST',
      path: '',
      form: true,
      body: { ...hop, sessionID: s.id, MSISDN: s.msisdn, INPUT: s.serviceCode },
    }),
    next: (s, input) => ({
      method: 'POST',
      path: '',
      form: true,
      body: { ...hop, sessionID: s.id, MSISDN: s.msisdn, opCode: '', INPUT: input },
    }),
    hangUp: (s) => ({
      method: 'POST',
      path: '',
      form: true,
      body: { ...hop, sessionID: s.id, MSISDN: s.msisdn, opCode: 'ABO' },
    }),
    read: (body) => {
      const parts = body.split('|');
      return { text: parts[1] ?? '', end: parts[4] === 'end' };
    },
  },
};
