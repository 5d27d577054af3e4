import type { AdapterCases } from '../wire-cases';
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
  noEndSignal:
    'the format sends no end notification: a dropped dialogue is offered for resume at the next dial',
  parse: [
    {
      name: 'new session',
      kind: 'new',
      request: { body: hop },
      expect: {
        hop: {
          sessionId: 'ark-1',
          msisdn: '233241234567',
          isNew: true,
          serviceCode: '*920*1#',
          network: 'MTN',
        },
      },
    },
    {
      name: 'continuation (latest input)',
      kind: 'continuation',
      request: { body: { ...hop, newSession: false, userData: '1' } },
      expect: { hop: { isNew: false, text: { kind: 'latest', value: '1' } } },
    },
    {
      name: 'back',
      kind: 'back',
      request: { body: { ...hop, newSession: 'false', userData: '0' } },
      expect: { hop: { text: { kind: 'latest', value: '0' } } },
    },
    {
      name: 're-delivered start is flagged new again',
      kind: 'redelivery',
      request: { body: hop },
      expect: { hop: { isNew: true } },
    },
    {
      name: 'malformed: newSession not a boolean',
      kind: 'malformed',
      request: { body: { ...hop, newSession: 'yes' } },
      expect: { error: 'field newSession must be true or false' },
    },
    {
      name: 'malformed: no sessionID',
      kind: 'malformed',
      request: { body: { ...hop, sessionID: undefined } },
      expect: { error: 'missing field: sessionID' },
    },
  ],
  reply: [
    {
      name: 'continue echoes the session',
      reply: { text: 'Menu', end: false },
      hop: { body: hop },
      expect: {
        body: {
          sessionID: 'ark-1',
          userID: 'USER1',
          msisdn: '233241234567',
          message: 'Menu',
          continueSession: true,
        },
      },
    },
    {
      name: 'end',
      reply: { text: 'Bye', end: true },
      hop: { body: hop },
      expect: {
        body: {
          sessionID: 'ark-1',
          userID: 'USER1',
          msisdn: '233241234567',
          message: 'Bye',
          continueSession: false,
        },
      },
    },
  ],
  dialer: {
    start: (s) => ({
      method: 'POST',
      path: '',
      body: { ...hop, sessionID: s.id, msisdn: s.msisdn, userData: s.serviceCode },
    }),
    next: (s, input) => ({
      method: 'POST',
      path: '',
      body: { ...hop, sessionID: s.id, msisdn: s.msisdn, newSession: false, userData: input },
    }),
    read: (body) => {
      const r = JSON.parse(body) as { message: string; continueSession: boolean };
      return { text: r.message, end: !r.continueSession };
    },
  },
};
