import { newSession, postHop, readConEnd, type AdapterCases } from '../../wire-cases';
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
    newSession(
      { body: form },
      { sessionId: 'ATUid_1', msisdn: '26771234567', text: { kind: 'cumulative', value: '' } },
    ),
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
      expect: { error: 'field sessionId has unexpected characters' },
    },
    {
      name: 'a typed star stays in the text as sent',
      kind: 'continuation',
      request: { body: { ...form, text: '1*2**7' } },
      expect: { hop: { text: { kind: 'cumulative', value: '1*2**7' } } },
    },
    {
      name: 'new session without networkCode; a + sent unencoded (a space) still reads',
      kind: 'new',
      request: { body: { ...form, networkCode: undefined, phoneNumber: ' 26771234567' } },
      expect: { hop: { msisdn: '26771234567', network: undefined, serviceCode: '*384#' } },
    },
    ...(
      [
        ['not a form body', { body: 'sessionId=x' }, 'expected an application/x-www-form-urlencoded body'],
        ['GET', { method: 'GET', body: form }, 'expected POST'],
        ['blank sessionId', { body: { ...form, sessionId: '  ' } }, 'missing field: sessionId'],
        [
          'phoneNumber too short',
          { body: { ...form, phoneNumber: '+12345' } },
          'field phoneNumber must be an E.164 number (+ and 7 to 15 digits)',
        ],
        [
          'phoneNumber with letters',
          { body: { ...form, phoneNumber: '+2677abc' } },
          'field phoneNumber must be an E.164 number (+ and 7 to 15 digits)',
        ],
        ['no serviceCode', { body: { ...form, serviceCode: undefined } }, 'missing field: serviceCode'],
        ['no text', { body: { ...form, text: undefined } }, 'missing field: text'],
        [
          'a repeated text field',
          { body: { ...form, text: ['1', '2'] } },
          'field text must be a single value',
        ],
        [
          'text too long',
          { body: { ...form, text: '1'.repeat(1001) } },
          'field text is longer than 1000 characters',
        ],
        ['end without status', { body: form, route: '/events' }, 'missing field: status'],
        [
          'end with an unknown status',
          { body: { ...form, status: 'constructor' }, route: '/events' },
          'field status must be Success, Incomplete or Failed',
        ],
        [
          'end without phoneNumber',
          { body: { ...form, status: 'Success', phoneNumber: undefined }, route: '/events' },
          'missing field: phoneNumber',
        ],
      ] as const
    ).map(([what, request, error]) => ({
      name: `malformed: ${what}`,
      kind: 'malformed' as const,
      request,
      expect: { error },
    })),
    ...(
      [
        ['Success', 'completed'],
        ['Failed', 'failed'],
      ] as const
    ).map(([status, mapped]) => ({
      name: `end: ${status} → ${mapped}`,
      kind: 'end' as const,
      request: {
        body: { ...form, status, input: '1*2', hopsCount: '3', durationInMillis: '12000' },
        route: '/events',
      },
      expect: { end: { sessionId: 'ATUid_1', msisdn: '26771234567', status: mapped } },
    })),
  ],
  reply: [
    {
      name: 'continue (a screen of several lines)',
      reply: { text: 'Choose:\n1. Electricity', end: false },
      expect: { contentType: 'text/plain; charset=utf-8', body: 'CON Choose:\n1. Electricity' },
    },
    { name: 'end', reply: { text: 'Bye', end: true }, expect: { body: 'END Bye' } },
  ],
  dialer: {
    start: (s) =>
      postHop({ sessionId: s.id, phoneNumber: `+${s.msisdn}`, serviceCode: s.serviceCode, text: '' }, true),
    dialExtension: (s, extension) =>
      postHop(
        { sessionId: s.id, phoneNumber: `+${s.msisdn}`, serviceCode: s.serviceCode, text: extension },
        true,
      ),
    next: (s, input) =>
      postHop(
        {
          sessionId: s.id,
          phoneNumber: `+${s.msisdn}`,
          serviceCode: s.serviceCode,
          text: [...s.inputs, input].join('*'),
        },
        true,
      ),
    hangUp: (s) => ({
      method: 'POST',
      path: '/events',
      form: true,
      body: { sessionId: s.id, phoneNumber: `+${s.msisdn}`, status: 'Incomplete' },
    }),
    read: readConEnd,
  },
};
