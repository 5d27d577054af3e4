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
import { arkeselAdapter } from './adapter';

const hop = {
  sessionID: 'ark-1',
  userID: 'USER1',
  newSession: true,
  msisdn: '233241234567',
  userData: '*920*1#',
  network: 'MTN',
};

export const arkeselCases: AdapterCases = {
  adapter: arkeselAdapter,
  noEndSignal: NO_END_NOTIFICATION,
  parse: [
    newSession(
      { body: hop },
      { sessionId: 'ark-1', msisdn: '233241234567', serviceCode: '*920*1#', network: 'MTN' },
    ),
    ...latestInputSteps((userData) => ({ body: { ...hop, newSession: false, userData } })),
    {
      name: 'newSession as the text "false"',
      kind: 'continuation',
      request: { body: { ...hop, newSession: 'false', userData: '2' } },
      expect: { hop: { isNew: false } },
    },
    redeliveredStart({ body: hop }, 'ark-1'),
    {
      name: 'malformed: newSession not a boolean',
      kind: 'malformed',
      request: { body: { ...hop, newSession: 'yes' } },
      expect: { error: 'field newSession must be true or false' },
    },
    missingField('sessionID', { body: { ...hop, sessionID: undefined } }),
  ],
  // Both echo the session.
  reply: continueAndEnd(
    (message, end) => ({
      body: { sessionID: 'ark-1', userID: 'USER1', msisdn: '233241234567', message, continueSession: !end },
    }),
    { body: hop },
  ),
  dialer: {
    start: (s) => postHop({ ...hop, sessionID: s.id, msisdn: s.msisdn, userData: s.serviceCode }),
    next: (s, input) =>
      postHop({ ...hop, sessionID: s.id, msisdn: s.msisdn, newSession: false, userData: input }),
    read: readJson('message', 'continueSession', false),
  },
};
