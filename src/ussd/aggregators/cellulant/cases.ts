import {
  latestInputSteps,
  missingField,
  newSession,
  postHop,
  redeliveredStart,
  type AdapterCases,
} from '../../wire-cases';
import { cellulantAdapter } from './adapter';

/**
 * Source: praekeltfoundation/vumi `vumi/transports/cellulant/cellulant.py` and
 * `tests/test_cellulant.py` (a GET query: `MSISDN`, `sessionID`, `opCode`, `INPUT`, `ABORT`;
 * `BEG` with `INPUT=*120*1#`, then `opCode=''` with the latest input; aborts by `opCode=ABO` or
 * `ABORT=1`, answered with an empty body).
 */
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
      name: 'new session on a sub-code: BEG with the dialled string (test_inbound_begin: *120*1#)',
      kind: 'new',
      request: { method: 'GET', query: { ...hop, INPUT: '*120*1#' } },
      expect: { hop: { isNew: true, serviceCode: '*120*1#' } },
    },
    {
      name: 'continuation: opCode empty, the latest input (test_inbound_resume_and_reply_with_end)',
      kind: 'continuation',
      request: { method: 'GET', query: { ...hop, opCode: '', INPUT: 'hi' } },
      expect: { hop: { isNew: false, text: { kind: 'latest', value: 'hi' } } },
    },
    {
      name: 'ABO ends the session on the hop URL (test_inbound_abort_opcode)',
      kind: 'end',
      request: { body: { ...hop, opCode: 'ABO' } },
      expect: { end: { sessionId: 'cel-1', status: 'incomplete' } },
    },
    // Any ABORT but 0 or null ends it (test_inbound_abort_field sends ABORT=1).
    ...['1', '2', 'true'].map((ABORT) => ({
      name: `ABORT=${ABORT} ends the session`,
      kind: 'end' as const,
      request: { method: 'GET', query: { ...hop, opCode: '', INPUT: '', ABORT } },
      expect: { end: { sessionId: 'cel-1', status: 'incomplete' as const } },
    })),
    ...['0', 'null'].map((ABORT) => ({
      name: `ABORT=${ABORT} continues`,
      kind: 'continuation' as const,
      request: { method: 'GET', query: { ...hop, opCode: '', INPUT: '1', ABORT } },
      expect: { hop: { text: { kind: 'latest' as const, value: '1' } } },
    })),
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
