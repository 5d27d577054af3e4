import {
  MalformedAnswerError,
  PaymentTransportError,
  ProviderAuthenticationError,
  ProviderNotFoundError,
  ProviderRateLimitError,
  ProviderRequestError,
  ProviderUnavailableError,
  ReferenceExistsError,
  SubscriberBusyError,
  errorFromAnswer,
  retryDelayMs,
  shouldRetry,
} from '../../src/payments/errors';
import { moneyFromWire } from '../../src/payments/wire';

/** The one mapping from a provider's answer to a typed error, the retry rule, and amounts off the wire. */

test.each([
  [
    400,
    { errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid BusinessShortCode' },
    ProviderRequestError,
    'rejected',
  ],
  [
    404,
    { errorCode: '404.001.03', errorMessage: 'Invalid Access Token' },
    ProviderAuthenticationError,
    'rejected',
  ],
  [
    500,
    { errorCode: '500.001.1001', errorMessage: 'Unable to lock subscriber' },
    SubscriberBusyError,
    'rejected',
  ],
  [500, { errorCode: '500.003.02', errorMessage: 'Spike arrest' }, ProviderRateLimitError, 'unknown'],
  [500, { errorCode: '500.003.1001', errorMessage: 'Internal' }, ProviderUnavailableError, 'unknown'],
  [
    409,
    { code: 'RESOURCE_ALREADY_EXIST', message: 'Duplicated reference id' },
    ReferenceExistsError,
    'rejected',
  ],
  [500, { code: 'INVALID_CURRENCY', message: 'Currency not supported' }, ProviderRequestError, 'rejected'],
  [500, { code: 'INTERNAL_PROCESSING_ERROR', message: 'x' }, ProviderUnavailableError, 'unknown'],
  [404, { code: 'RESOURCE_NOT_FOUND', message: 'x' }, ProviderNotFoundError, 'rejected'],
  [400, { error: { code: 'invalid_request', message: 'payer unknown' } }, ProviderRequestError, 'rejected'],
  [429, { error: { code: 'rate_limited', message: 'slow down' } }, ProviderRateLimitError, 'rejected'],
  [403, undefined, ProviderAuthenticationError, 'rejected'],
  [502, undefined, ProviderUnavailableError, 'unknown'],
  [422, '<html>', ProviderRequestError, 'rejected'],
  [200, { odd: true }, MalformedAnswerError, 'unknown'],
  // A code that looks like Object.prototype's is no known code.
  [500, { code: 'constructor' }, ProviderUnavailableError, 'unknown'],
])('HTTP %i %j → %p (%s)', (status, body, cls, outcome) => {
  const error = errorFromAnswer({ provider: 'p', operation: 'op', status, body });
  expect(error).toBeInstanceOf(cls);
  expect(error.outcome).toBe(outcome);
});

it('reads Retry-After', () => {
  const error = errorFromAnswer({
    provider: 'p',
    operation: 'op',
    status: 429,
    body: {},
    headers: { 'retry-after': '3' },
  });
  expect(error).toMatchObject({ retryAfterMs: 3000 });
  expect(retryDelayMs(1, error, { random: () => 0 })).toBe(3000);
  expect(retryDelayMs(3, new Error('x'), { random: () => 1, baseMs: 200 })).toBe(800);
  expect(retryDelayMs(10, new Error('x'), { random: () => 1, maxMs: 5000 })).toBe(5000);
});

const unavailable = errorFromAnswer({ provider: 'p', operation: 'op', status: 503, body: undefined });
const refused = errorFromAnswer({ provider: 'p', operation: 'op', status: 400, body: undefined });
const limited = errorFromAnswer({ provider: 'p', operation: 'op', status: 429, body: undefined });
test.each([
  ['a 5xx of an idempotent call', unavailable, true, true],
  ['a 5xx of a Daraja push (not idempotent)', unavailable, false, false],
  ['a dropped connection, idempotent', new PaymentTransportError('unknown', 'reset'), true, true],
  [
    'nothing sent, not idempotent: still never re-sent by itself',
    new PaymentTransportError('not_sent', 'refused'),
    false,
    false,
  ],
  ['a refusal', refused, true, false],
  ['a rate limit, idempotent', limited, true, true],
  ['an unreadable answer', new MalformedAnswerError('x', 200), true, false],
])('shouldRetry: %s', (_label, error, idempotent, expected) => {
  expect(shouldRetry(error, idempotent)).toBe(expected);
});

test.each([
  [1.0, 100],
  [1, 100],
  [101.5, 10_150],
  ['5.0', 500],
  ['500', 50_000],
  ['0.07', 7],
  ['1.500', 150],
  ['1.005', undefined],
  [-1, undefined],
  ['1e3', undefined],
  [null, undefined],
])('moneyFromWire(%p) = %p minor units', (value, minor) => {
  expect(moneyFromWire(value, 'KES')?.minor).toBe(minor);
});
