import type { DeliveryReport } from '../../messaging/sender';
import { africasTalkingInbound } from './africastalking/adapter';
import { genericInbound } from './generic/adapter';
import type { InboundParseError, InboundSms, InboundSmsAdapter } from './types';

/** One wire case: a request body → the message (or report) it must become, or the 400 message. */
type Case<T> = [name: string, body: unknown, expected: T | InboundParseError];

const AT_FORM = {
  id: 'ATXid_1',
  text: 'ELEC 01234567890 100',
  from: '+26771234567',
  to: '12345',
  date: '2026-11-23 10:00:00',
};
/** What AT_FORM becomes. */
const AT_MESSAGE: InboundSms = {
  provider: 'africastalking',
  messageId: 'ATXid_1',
  from: '+26771234567',
  to: '12345',
  text: 'ELEC 01234567890 100',
  receivedAt: '2026-11-23 10:00:00',
};

const MESSAGE_CASES: [InboundSmsAdapter, Case<InboundSms>[]][] = [
  [
    africasTalkingInbound,
    [
      ['a message', AT_FORM, AT_MESSAGE],
      ['optional linkId and networkCode', { ...AT_FORM, linkId: 'L1', networkCode: '65201' }, AT_MESSAGE],
      [
        'an empty text is a message (answered with help)',
        { ...AT_FORM, text: '' },
        { ...AT_MESSAGE, text: '' },
      ],
      ['missing id', { ...AT_FORM, id: undefined }, { error: 'missing field: id' }],
      ['missing text', { ...AT_FORM, text: undefined }, { error: 'missing field: text' }],
      ['missing from', { ...AT_FORM, from: undefined }, { error: 'missing field: from' }],
      ['missing to', { ...AT_FORM, to: undefined }, { error: 'missing field: to' }],
      ['missing date', { ...AT_FORM, date: undefined }, { error: 'missing field: date' }],
      ['an empty id', { ...AT_FORM, id: ' ' }, { error: 'field id is empty' }],
      [
        'a field that is not text (JSON body)',
        { ...AT_FORM, text: 42 },
        { error: 'field text must be text' },
      ],
      ['a text too long', { ...AT_FORM, text: 'x'.repeat(1601) }, { error: 'field text is too long' }],
      ['no body', undefined, { error: 'expected a form body' }],
      ['an array body', [AT_FORM], { error: 'expected a form body' }],
    ],
  ],
  [
    genericInbound,
    [
      [
        'a message with an id',
        { id: 'm-1', from: '26771234567', to: '12345', text: 'HELP', receivedAt: '2026-11-23T10:00:00Z' },
        {
          provider: 'generic',
          messageId: 'm-1',
          from: '26771234567',
          to: '12345',
          text: 'HELP',
          receivedAt: '2026-11-23T10:00:00Z',
        },
      ],
      [
        'without an id (de-duplicated by sender and text)',
        { from: '26771234567', to: '12345', text: 'HELP', receivedAt: '2026-11-23T10:00:00Z' },
        {
          provider: 'generic',
          messageId: null,
          from: '26771234567',
          to: '12345',
          text: 'HELP',
          receivedAt: '2026-11-23T10:00:00Z',
        },
      ],
      [
        'a null id',
        { id: null, from: '26771234567', to: '12345', text: 'HELP', receivedAt: 'x' },
        {
          provider: 'generic',
          messageId: null,
          from: '26771234567',
          to: '12345',
          text: 'HELP',
          receivedAt: 'x',
        },
      ],
      ['missing from', { to: '12345', text: 'HELP', receivedAt: 'x' }, { error: 'missing field: from' }],
      [
        'missing text',
        { from: '26771234567', to: '12345', receivedAt: 'x' },
        { error: 'missing field: text' },
      ],
      [
        'missing receivedAt',
        { from: '26771234567', to: '12345', text: 'HELP' },
        { error: 'missing field: receivedAt' },
      ],
      [
        'a number for text',
        { from: '26771234567', to: '12345', text: 5, receivedAt: 'x' },
        { error: expect.stringMatching(/^field text: /) as unknown as string },
      ],
      ['not an object', 'HELP', { error: 'expected a JSON object body' }],
    ],
  ],
];

const DELIVERY_CASES: Case<DeliveryReport>[] = [
  [
    'Success',
    { id: 'ATXid_9', status: 'Success', networkCode: '65201' },
    {
      provider: 'africastalking',
      providerMessageId: 'ATXid_9',
      state: 'delivered',
      providerStatus: 'Success',
      failureReason: null,
    },
  ],
  [
    'Sent',
    { id: 'ATXid_9', status: 'Sent' },
    {
      provider: 'africastalking',
      providerMessageId: 'ATXid_9',
      state: 'pending',
      providerStatus: 'Sent',
      failureReason: null,
    },
  ],
  [
    'Buffered',
    { id: 'ATXid_9', status: 'Buffered' },
    {
      provider: 'africastalking',
      providerMessageId: 'ATXid_9',
      state: 'pending',
      providerStatus: 'Buffered',
      failureReason: null,
    },
  ],
  [
    'Failed with a reason',
    { id: 'ATXid_9', status: 'Failed', failureReason: 'AbsentSubscriber', retryCount: '2' },
    {
      provider: 'africastalking',
      providerMessageId: 'ATXid_9',
      state: 'failed',
      providerStatus: 'Failed',
      failureReason: 'AbsentSubscriber',
    },
  ],
  [
    'Rejected',
    { id: 'ATXid_9', status: 'Rejected', failureReason: 'DeliveryFailure' },
    {
      provider: 'africastalking',
      providerMessageId: 'ATXid_9',
      state: 'failed',
      providerStatus: 'Rejected',
      failureReason: 'DeliveryFailure',
    },
  ],
  [
    'Expired',
    { id: 'ATXid_9', status: 'Expired' },
    {
      provider: 'africastalking',
      providerMessageId: 'ATXid_9',
      state: 'failed',
      providerStatus: 'Expired',
      failureReason: null,
    },
  ],
  [
    'an unknown status',
    { id: 'ATXid_9', status: 'Delivered' },
    { error: 'field status must be one of Success, Sent, Buffered, Rejected, Failed, Expired' },
  ],
  ['missing id', { status: 'Success' }, { error: 'missing field: id' }],
  ['missing status', { id: 'ATXid_9' }, { error: 'missing field: status' }],
  // Names every object answers to are not statuses (src/http/wire-table.ts).
  ...['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'].map(
    (status): Case<DeliveryReport> => [
      `status ${status}`,
      { id: 'ATXid_9', status },
      { error: 'field status must be one of Success, Sent, Buffered, Rejected, Failed, Expired' },
    ],
  ),
];

describe.each(MESSAGE_CASES)('inbound SMS wire cases: $name', (adapter, cases) => {
  test.each(cases)('%s', (_name, body, expected) => {
    expect(adapter.parseMessage({ body, headers: {} })).toEqual(expected);
  });
});

describe("Africa's Talking delivery reports", () => {
  test.each(DELIVERY_CASES)('%s', (_name, body, expected) => {
    expect(africasTalkingInbound.parseDelivery!({ body, headers: {} })).toEqual(expected);
  });
});
