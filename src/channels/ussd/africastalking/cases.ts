import type { AdapterCases } from '../wire-cases';
import { africasTalkingAdapter } from './adapter';

const form = {
  sessionId: 'ATUid_1',
  phoneNumber: '+26771234567',
  serviceCode: '*384#',
  networkCode: '65201',
  text: '',
};

export const africasTalkingCases: AdapterCases = {
  adapter: africasTalkingAdapter,
  parse: [
    {
      name: 'new session',
      kind: 'new',
      request: { body: form },
      expect: {
        hop: {
          sessionId: 'ATUid_1',
          msisdn: '26771234567',
          isNew: true,
          text: { kind: 'cumulative', value: '' },
        },
      },
    },
    {
      name: 'continuation (cumulative)',
      kind: 'continuation',
      request: { body: { ...form, text: '1*01234567890' } },
      expect: { hop: { isNew: false, text: { kind: 'cumulative', value: '1*01234567890' } } },
    },
    {
      name: 'back',
      kind: 'back',
      request: { body: { ...form, text: '1*0' } },
      expect: { hop: { text: { kind: 'cumulative', value: '1*0' } } },
    },
    {
      name: 'end notification (its own route)',
      kind: 'end',
      request: { body: { ...form, status: 'Incomplete' }, route: '/events' },
      expect: { end: { sessionId: 'ATUid_1', msisdn: '26771234567', status: 'incomplete' } },
    },
    {
      name: 're-delivery: the same text again (no sequence: the text is the key)',
      kind: 'redelivery',
      request: { body: { ...form, text: '1*01234567890' } },
      expect: { hop: { text: { kind: 'cumulative', value: '1*01234567890' } } },
    },
    {
      name: 'malformed: no phoneNumber',
      kind: 'malformed',
      request: { body: { ...form, phoneNumber: undefined } },
      expect: { error: 'missing field: phoneNumber' },
    },
    {
      name: 'malformed: session id with a brace',
      kind: 'malformed',
      request: { body: { ...form, sessionId: 'a{b}' } },
      expect: { error: /sessionId/ },
    },
  ],
  reply: [
    { name: 'continue', reply: { text: 'Menu', end: false }, expect: { body: 'CON Menu' } },
    { name: 'end', reply: { text: 'Bye', end: true }, expect: { body: 'END Bye' } },
  ],
  dialer: {
    start: (s) => ({
      method: 'POST',
      path: '',
      form: true,
      body: { sessionId: s.id, phoneNumber: `+${s.msisdn}`, serviceCode: s.serviceCode, text: '' },
    }),
    next: (s, input) => ({
      method: 'POST',
      path: '',
      form: true,
      body: {
        sessionId: s.id,
        phoneNumber: `+${s.msisdn}`,
        serviceCode: s.serviceCode,
        text: [...s.inputs, input].join('*'),
      },
    }),
    hangUp: (s) => ({
      method: 'POST',
      path: '/events',
      form: true,
      body: { sessionId: s.id, phoneNumber: `+${s.msisdn}`, status: 'Incomplete' },
    }),
    read: (body) => ({ text: body.slice(4), end: body.startsWith('END ') }),
  },
};
