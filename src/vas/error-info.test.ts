import { errorInfo, MalformedResponseError, RateLimitError, TransportError, ValidationError } from './';

describe('errorInfo: any failure as plain data', () => {
  it('keeps what the service said', () => {
    const error = new ValidationError({
      type: 'validation_error',
      code: 'invalid_argument',
      message: 'amount is too small',
      param: 'amount',
      retryable: false,
      requestId: 'r-1',
      status: 400,
    });
    expect(errorInfo(error)).toEqual({
      name: 'ValidationError',
      code: 'invalid_argument',
      type: 'validation_error',
      message: 'amount is too small',
      param: 'amount',
      status: 400,
      outcome: 'rejected',
      retryable: false,
      retryAfterMs: null,
    });
  });

  it("carries a rate limit's Retry-After", () => {
    const error = new RateLimitError({
      type: 'rate_limit_error',
      code: 'rate_limited',
      message: 'slow down',
      param: null,
      retryable: true,
      requestId: null,
      status: 429,
    });
    error.retryAfterMs = 2000;
    expect(errorInfo(error)).toMatchObject({ code: 'rate_limited', retryAfterMs: 2000, status: 429 });
  });

  it.each([
    [new TransportError('not_sent', 'ECONNREFUSED', 'r-1'), 'transport_error', null, 'not_sent'],
    [new TransportError('unknown', 'socket hang up', 'r-1'), 'transport_error', null, 'unknown'],
    [new MalformedResponseError('not JSON', 'r-1', 200), 'malformed_response', 200, 'unknown'],
    [new TypeError('x is undefined'), 'unexpected', null, 'unknown'],
    ['boom', 'unexpected', null, 'unknown'],
  ] as const)('%p → %s', (error, code, status, outcome) => {
    expect(errorInfo(error)).toMatchObject({
      code,
      status,
      outcome,
      type: null,
      param: null,
      retryable: true,
    });
    // Plain data: survives JSON (snapshots, records).
    expect(JSON.parse(JSON.stringify(errorInfo(error)))).toEqual(errorInfo(error));
  });
});
