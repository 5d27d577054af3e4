import {
  latestInputSteps,
  missingField,
  newSession,
  postHop,
  redeliveredStart,
  type AdapterCases,
} from '../wire-cases';
import { cellulantAdapter } from './adapter';

const hop = { MSISDN: '254712345678', sessionID: 'cel-1', opCode: 'BEG', INPUT: '*384#', ABORT: '0' };

export const cellulantCases: AdapterCases = {
  adapter: cellulantAdapter,
  parse: [
    newSession(
      { body: hop },
      { sessionId: 'cel-1', msisdn: '254712345678', serviceCode: '*384#' },
      'new session (BEG: the service code)',
    ),
    ...latestInputSteps((INPUT) => ({ body: { ...hop, opCode: 'CON', INPUT } })),
    {
      name: 'continuation as a GET',
      kind: 'continuation',
      request: { method: 'GET', query: { ...hop, opCode: '', INPUT: '2' } },
      expect: { hop: { isNew: false, text: { kind: 'latest', value: '2' } } },
    },
    {
      name: 'ABO ends the session on the hop URL',
      kind: 'end',
      request: { body: { ...hop, opCode: 'ABO' } },
      expect: { end: { sessionId: 'cel-1', status: 'incomplete' } },
    },
    redeliveredStart({ body: hop }, 'cel-1', 'BEG'),
    missingField('sessionID', { body: { ...hop, sessionID: undefined } }),
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
    start: (s) => postHop({ ...hop, sessionID: s.id, MSISDN: s.msisdn, INPUT: s.serviceCode }, true),
    next: (s, input) =>
      postHop({ ...hop, sessionID: s.id, MSISDN: s.msisdn, opCode: '', INPUT: input }, true),
    hangUp: (s) => postHop({ ...hop, sessionID: s.id, MSISDN: s.msisdn, opCode: 'ABO' }, true),
    read: (body) => {
      const parts = body.split('|');
      return { text: parts[1] ?? '', end: parts[4] === 'end' };
    },
  },
};
