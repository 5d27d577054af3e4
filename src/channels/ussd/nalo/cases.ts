import type { AdapterCases } from '../wire-cases';
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
  noEndSignal:
    'the format sends no end notification: a dropped dialogue is offered for resume at the next dial',
  parse: [
    {
      name: 'new session (MSGTYPE true: the dialled code)',
      kind: 'new',
      request: { body: hop },
      expect: { hop: { sessionId: 'nalo-1', isNew: true, serviceCode: '*920*55#' } },
    },
    {
      name: 'continuation (latest input)',
      kind: 'continuation',
      request: { body: { ...hop, MSGTYPE: false, USERDATA: '1' } },
      expect: { hop: { isNew: false, text: { kind: 'latest', value: '1' } } },
    },
    {
      name: 'back',
      kind: 'back',
      request: { body: { ...hop, MSGTYPE: false, USERDATA: '0' } },
      expect: { hop: { text: { kind: 'latest', value: '0' } } },
    },
    {
      name: 're-delivered start is flagged new again',
      kind: 'redelivery',
      request: { body: hop },
      expect: { hop: { isNew: true } },
    },
    {
      name: 'malformed: no MSISDN',
      kind: 'malformed',
      request: { body: { ...hop, MSISDN: undefined } },
      expect: { error: 'missing field: MSISDN' },
    },
    {
      name: 'malformed: a short MSISDN',
      kind: 'malformed',
      request: { body: { ...hop, MSISDN: '1234' } },
      expect: { error: /MSISDN must be an international number/ },
    },
  ],
  reply: [
    {
      name: 'continue',
      reply: { text: 'Menu', end: false },
      hop: { body: hop },
      expect: { body: { USERID: 'NALOTest', MSISDN: '233241234567', MSG: 'Menu', MSGTYPE: true } },
    },
    {
      name: 'end',
      reply: { text: 'Bye', end: true },
      hop: { body: hop },
      expect: { body: { USERID: 'NALOTest', MSISDN: '233241234567', MSG: 'Bye', MSGTYPE: false } },
    },
  ],
  dialer: {
    start: (s) => ({
      method: 'POST',
      path: '',
      body: { ...hop, SESSIONID: s.id, MSISDN: s.msisdn, USERDATA: s.serviceCode },
    }),
    next: (s, input) => ({
      method: 'POST',
      path: '',
      body: { ...hop, SESSIONID: s.id, MSISDN: s.msisdn, MSGTYPE: false, USERDATA: input },
    }),
    read: (body) => {
      const r = JSON.parse(body) as { MSG: string; MSGTYPE: boolean };
      return { text: r.MSG, end: !r.MSGTYPE };
    },
  },
};
