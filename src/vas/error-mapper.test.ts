import {
  AuthenticationError,
  ConflictError,
  InsufficientFundsError,
  InternalServerError,
  MalformedResponseError,
  NotFoundError,
  PermissionError,
  ProviderError,
  ProviderTimeoutError,
  ProviderUnavailableError,
  RateLimitError,
  ValidationError,
  mapErrorResponse,
  parseRetryAfter,
} from './';

const v1 = (type: string, code: string, extra: Record<string, unknown> = {}) => ({
  error: {
    type,
    code,
    message: `${code} happened`,
    param: null,
    retryable: false,
    doc_url: 'x',
    request_id: 'rq-1',
    ...extra,
  },
});
const legacy = (code: string, errors: Record<string, string> = {}) => ({
  response_code: code,
  response_message: `${code} happened`,
  timestamp: 1700000000000,
  developer_message: 'SomethingException',
  errors,
});

describe('mapErrorResponse', () => {
  it.each([
    [401, 'authentication_error', 'invalid_credentials', AuthenticationError, 'rejected'],
    [403, 'permission_error', 'meter_not_allowed', PermissionError, 'rejected'],
    [400, 'validation_error', 'invalid_msisdn', ValidationError, 'rejected'],
    [404, 'not_found_error', 'meter_not_found', NotFoundError, 'rejected'],
    [409, 'conflict_error', 'transaction_pending', ConflictError, 'rejected'],
    [402, 'insufficient_funds_error', 'insufficient_balance', InsufficientFundsError, 'rejected'],
    [429, 'rate_limit_error', 'rate_limited', RateLimitError, 'rejected'],
    [422, 'provider_error', 'meter_blocked', ProviderError, 'rejected'],
    [504, 'provider_timeout', 'provider_timeout', ProviderTimeoutError, 'unknown'],
    [502, 'provider_unavailable', 'provider_unavailable', ProviderUnavailableError, 'unknown'],
    [502, 'provider_unavailable', 'merchant_credit_exhausted', ProviderUnavailableError, 'unknown'],
    [500, 'internal_error', 'internal_error', InternalServerError, 'unknown'],
  ])('v1 %i %s/%s → %p, outcome %s', (status, type, code, cls, outcome) => {
    const error = mapErrorResponse(status, v1(type, code), { 'x-request-id': 'hdr' });
    expect(error).toBeInstanceOf(cls);
    expect(error).toMatchObject({
      type,
      code,
      status,
      requestId: 'rq-1',
      message: `${code} happened`,
      outcome,
    });
  });

  it('keeps param and retryable from the envelope; unknown types fall back by status', () => {
    const error = mapErrorResponse(400, v1('validation_error', 'amount_below_minimum', { param: 'amount' }));
    expect(error).toMatchObject({ param: 'amount', retryable: false });
    const odd = mapErrorResponse(422, v1('brand_new_type', 'brand_new_code', { retryable: true }));
    expect(odd).toBeInstanceOf(ProviderError);
    expect(odd).toMatchObject({ type: 'brand_new_type', code: 'brand_new_code', retryable: true });
  });

  it.each([
    ['meter_blocked', 422, ProviderError],
    ['invalid_credentials', 401, AuthenticationError],
    ['transaction_not_found', 404, NotFoundError],
    ['provider_timeout', 504, ProviderTimeoutError],
  ])('legacy envelope %s maps to the same class as v1', (code, status, cls) => {
    const error = mapErrorResponse(status, legacy(code, { meter_number: 'bad' }), { 'x-request-id': 'hdr' });
    expect(error).toBeInstanceOf(cls);
    expect(error).toMatchObject({ code, status, param: 'meter_number', requestId: 'hdr' });
  });

  it('a legacy error answered with HTTP 200 takes the status of its code', () => {
    const error = mapErrorResponse(200, legacy('insufficient_balance'));
    expect(error).toBeInstanceOf(InsufficientFundsError);
    expect(error).toMatchObject({ status: 402, outcome: 'rejected' });
  });

  it("an error envelope in a 200 answer takes its type's status: a 500-class type stays outcome unknown", () => {
    expect(mapErrorResponse(200, v1('internal_error', 'internal_error'))).toMatchObject({
      status: 500,
      outcome: 'unknown',
    });
    expect(mapErrorResponse(200, v1('provider_error', 'meter_blocked'))).toMatchObject({
      status: 422,
      outcome: 'rejected',
    });
    expect(mapErrorResponse(200, v1('brand_new_type', 'brand_new_code')).outcome).toBe('unknown');
  });

  it('a legacy code we do not know, answered with HTTP 200, is no verdict: outcome unknown', () => {
    expect(mapErrorResponse(200, legacy('E042')).outcome).toBe('unknown');
    expect(mapErrorResponse(422, legacy('E042')).outcome).toBe('rejected');
  });

  it('a 5xx without an envelope is malformed with outcome unknown; a 4xx is typed by status', () => {
    const error = mapErrorResponse(503, undefined, { 'x-request-id': 'h' });
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.outcome).toBe('unknown');
    const notFound = mapErrorResponse(404, undefined);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound).toMatchObject({ code: 'http_404', outcome: 'rejected' });
  });

  it('429 carries Retry-After as milliseconds', () => {
    const error = mapErrorResponse(429, v1('rate_limit_error', 'rate_limited'), { 'retry-after': '2' });
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(2000);
    const bare = mapErrorResponse(429, undefined, {}) as RateLimitError;
    expect(bare).toBeInstanceOf(RateLimitError);
    expect(bare.retryAfterMs).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each([
    ['3', 3000],
    ['0', 0],
    ['1.5', 1500],
    ['Wed, 01 Jan 2025 00:00:05 GMT', 5000],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 0],
  ])('%s → %i ms', (value, ms) => expect(parseRetryAfter(value, now)).toBe(ms));
  it.each([[undefined], ['soon'], ['-1']])('%s → null', (value) =>
    expect(parseRetryAfter(value, now)).toBeNull(),
  );
});
