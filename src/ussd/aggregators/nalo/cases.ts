import {
  continueAndEnd,
  latestInputSteps,
  missingField,
  newSession,
  NO_END_NOTIFICATION,
  postHop,
  readJson,
  redeliveredStart,
  type AdapterCases,
} from '../../wire-cases';
import { naloAdapter } from './adapter';

const hop = {
  USERID: 'NALOTest',
  MSISDN: '233241234567',
  USERDATA: '*920*55#',
  MSGTYPE: true,
  NETWORK: 'MTN',
  SESSIONID: 'nalo-1',
};

export const naloCases: AdapterCases = {
  adapter: naloAdapter,
  noEndSignal: NO_END_NOTIFICATION,
  parse: [
    newSession(
      { body: hop },
      { sessionId: 'nalo-1', serviceCode: '*920*55#' },
      'new session (MSGTYPE true: the dialled code)',
    ),
    ...latestInputSteps((USERDATA) => ({ body: { ...hop, MSGTYPE: false, USERDATA } })),
    redeliveredStart({ body: hop }, 'nalo-1'),
    missingField('MSISDN', { body: { ...hop, MSISDN: undefined } }),
    {
      name: 'malformed: a short MSISDN',
      kind: 'malformed',
      request: { body: { ...hop, MSISDN: '1234' } },
      expect: { error: /MSISDN must be an international number/ },
    },
  ],
  reply: continueAndEnd(
    (MSG, end) => ({ body: { USERID: 'NALOTest', MSISDN: '233241234567', MSG, MSGTYPE: !end } }),
    { body: hop },
  ),
  dialer: {
    start: (s) => postHop({ ...hop, SESSIONID: s.id, MSISDN: s.msisdn, USERDATA: s.serviceCode }),
    next: (s, input) =>
      postHop({ ...hop, SESSIONID: s.id, MSISDN: s.msisdn, MSGTYPE: false, USERDATA: input }),
    read: readJson('MSG', 'MSGTYPE', false),
  },
};
