import { missingField, newSession, postHop, readJson, type AdapterCases } from '../../wire-cases';
import { hubtelAdapter } from './adapter';

/**
 * Source: Hubtel Programmable Services "API Documentation" (developers.hubtel.com, last updated
 * Feb 11 2026): the push request's fields and its sample USSD flow (`ServiceCode` `713`, first
 * `Message` `*713#`, then `2`, `150.5`), and the response table (`SessionId`, `Type`, `Message`,
 * `Label`, `DataType`, `FieldType` mandatory; `ClientState` optional).
 */
const hop = {
  SessionId: 'hub-1',
  Mobile: '233241234567',
  ServiceCode: '714',
  Type: 'Initiation',
  Message: '*714#',
  Operator: 'mtn',
  Sequence: 1,
  ClientState: '',
  Platform: 'USSD',
};

export const hubtelCases: AdapterCases = {
  adapter: hubtelAdapter,
  parse: [
    newSession(
      { body: hop },
      {
        sessionId: 'hub-1',
        msisdn: '233241234567',
        requestKey: 'seq:1',
        network: 'mtn',
        text: { kind: 'latest', value: '*714#' },
      },
      'new session (Initiation: the dialled string)',
    ),
    {
      name: 'new session on a sub-code: what follows ServiceCode in the dialled string is a shortcut',
      kind: 'new',
      request: { body: { ...hop, ServiceCode: '713', Message: '*713*1*01234567890#' } },
      expect: { hop: { isNew: true, dialled: '1*01234567890', serviceCode: '713' } },
    },
    {
      name: 'continuation (latest input; type in any case)',
      kind: 'continuation',
      request: { body: { ...hop, Type: 'response', Message: '2', Sequence: 2 } },
      expect: { hop: { isNew: false, requestKey: 'seq:2', text: { kind: 'latest', value: '2' } } },
    },
    {
      name: 'back',
      kind: 'back',
      request: { body: { ...hop, Type: 'Response', Message: '0', Sequence: 3 } },
      expect: { hop: { text: { kind: 'latest', value: '0' } } },
    },
    {
      name: 're-delivery keeps its sequence',
      kind: 'redelivery',
      request: { body: { ...hop, Type: 'Response', Message: '2', Sequence: 2 } },
      expect: { hop: { requestKey: 'seq:2' } },
    },
    {
      name: 'Release ends the session on the hop URL (resumable)',
      kind: 'end',
      request: { body: { ...hop, Type: 'Release', Message: '' } },
      expect: { end: { sessionId: 'hub-1', msisdn: '233241234567', status: 'incomplete' } },
    },
    {
      name: 'Timeout too',
      kind: 'end',
      request: { body: { ...hop, Type: 'TIMEOUT' } },
      expect: { end: { status: 'incomplete' } },
    },
    {
      name: 'malformed: unknown Type',
      kind: 'malformed',
      request: { body: { ...hop, Type: 'Start' } },
      expect: { error: /field Type must be/ },
    },
    missingField('Mobile', { body: { ...hop, Mobile: undefined } }),
  ],
  reply: [
    {
      name: "the docs' sample flow: SessionId echoed, the first line as the Label",
      reply: { text: 'Welcome to RSE Inc.\n1. Buy Airtime & Data\n3. Send Money', end: false, choice: true },
      hop: {
        body: {
          Type: 'Initiation',
          Mobile: '233200585542',
          SessionId: '3c796dac28174f739de4262d08409c51',
          ServiceCode: '713',
          Message: '*713#',
          Operator: 'vodafone',
          Sequence: 1,
          ClientState: '',
          Platform: 'USSD',
        },
      },
      expect: {
        body: {
          SessionId: '3c796dac28174f739de4262d08409c51',
          Type: 'Response',
          Message: 'Welcome to RSE Inc.\n1. Buy Airtime & Data\n3. Send Money',
          Label: 'Welcome to RSE Inc.',
          ClientState: '',
          DataType: 'input',
          FieldType: 'number',
        },
      },
    },
    {
      name: 'a menu: a number field, ClientState echoed',
      reply: { text: 'Menu', end: false, choice: true },
      hop: { body: { ...hop, ClientState: 'st-7' } },
      expect: {
        body: {
          SessionId: 'hub-1',
          Type: 'Response',
          Message: 'Menu',
          Label: 'Menu',
          ClientState: 'st-7',
          DataType: 'input',
          FieldType: 'number',
        },
      },
    },
    {
      name: 'a free-text prompt: a text field',
      reply: { text: 'Enter meter number', end: false },
      hop: { body: hop },
      expect: {
        body: {
          SessionId: 'hub-1',
          Type: 'Response',
          Message: 'Enter meter number',
          Label: 'Enter meter number',
          ClientState: '',
          DataType: 'input',
          FieldType: 'text',
        },
      },
    },
    {
      name: 'end',
      reply: { text: 'Bye', end: true },
      hop: { body: { ...hop, ClientState: 'st-7' } },
      expect: {
        body: {
          SessionId: 'hub-1',
          Type: 'Release',
          Message: 'Bye',
          Label: 'Bye',
          ClientState: 'st-7',
          DataType: 'display',
          FieldType: 'text',
        },
      },
    },
  ],
  dialer: {
    start: (s) => postHop({ ...hop, SessionId: s.id, Mobile: s.msisdn, Message: s.serviceCode, Sequence: 1 }),
    dialExtension: (s, extension) => {
      const code = s.serviceCode.replace(/^\*+/, '').replace(/#$/, '');
      return postHop({
        ...hop,
        SessionId: s.id,
        Mobile: s.msisdn,
        ServiceCode: code,
        Message: `*${code}*${extension}#`,
        Sequence: 1,
      });
    },
    next: (s, input) =>
      postHop({
        ...hop,
        SessionId: s.id,
        Mobile: s.msisdn,
        Type: 'Response',
        Message: input,
        Sequence: s.hops + 1,
      }),
    hangUp: (s) =>
      postHop({
        ...hop,
        SessionId: s.id,
        Mobile: s.msisdn,
        Type: 'Release',
        Message: '',
        Sequence: s.hops + 1,
      }),
    read: readJson('Message', 'Type', 'Release'),
  },
};
