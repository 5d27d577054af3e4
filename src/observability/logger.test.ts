import { Writable } from 'node:stream';
import winston from 'winston';
import {
  componentLogger,
  logger,
  maskMsisdn,
  maskNumbersInText,
  maskToken,
  redact,
  withLogContext,
} from './logger';

describe('log masking', () => {
  // One rule for every MSISDN in logs and on screens: country-code prefix and last four stay,
  // the middle is masked, length kept; under 10 characters only the last two stay.
  test.each([
    ['26771234567', '267****4567'],
    ['+26771234567', '267****4567'],
    ['+267 7123 4567', '267****4567'],
    ['254712345678', '254*****5678'],
    ['2547123456', '254***3456'],
    ['71234567', '******67'],
    ['1234567', '*****67'],
    ['12345', '***45'],
    ['12', '**'],
    ['', ''],
  ])('masks MSISDN %s as %s', (msisdn, masked) => {
    expect(maskMsisdn(msisdn)).toBe(masked);
  });

  it('keeps only the last four digits of a token', () => {
    expect(maskToken('1234 5678 9012 3456 7890')).toBe('****7890');
  });

  it('redacts secrets, masks phone numbers and tokens, and walks nested objects', () => {
    const masked = redact('meta', {
      password: 'hunter2',
      headers: { Authorization: 'Bearer abc', apiKey: 'k' },
      msisdn: '26771234567',
      beneficiary_phone_number: '26771234567',
      token: 'KeyChange Token1: 1111 2222 | Credit Token: 3333 4444',
      operation: 'confirm',
      list: [{ to: '26771234567' }],
    });
    expect(masked).toEqual({
      password: '[redacted]',
      headers: { Authorization: '[redacted]', apiKey: '[redacted]' },
      msisdn: '267****4567',
      beneficiary_phone_number: '267****4567',
      token: '****2222|****4444',
      operation: 'confirm',
      list: [{ to: '267****4567' }],
    });
    expect(JSON.stringify(masked)).not.toMatch(/hunter2|abc|71234567/);
  });
});

describe('masking of numbers the key names do not reveal', () => {
  test.each([
    // An SMS id embeds the recipient's number.
    [
      '09eb2491-789c-4cb2-bd52-a30f35fa1585:settled%3A09eb2491-789c-4cb2-bd52-a30f35fa1585:26771234567',
      '09eb2491-789c-4cb2-bd52-a30f35fa1585:settled%3A09eb2491-789c-4cb2-bd52-a30f35fa1585:267****4567',
    ],
    ['meter 01234567890 is locked', 'meter 012****7890 is locked'],
    ['call +26771234567 now', 'call +267****4567 now'],
    // A national number standing alone (a provider echoing our message).
    [
      'message too long: Token: 0243 6178 2717 1264 0323 for 71234567',
      'message too long: Token: ****0323 for ******67',
    ],
    ['1*71234567*100', '1*******67*100'],
    ['bad number 7123456.', 'bad number *****56.'],
    ['Token: 0243 6178 2717 1264 0323', 'Token: ****0323'],
    ['token 02436178271712640323 sent', 'token ****0323 sent'],
    ['token 0243-6178-2717-1264-0323', 'token ****0323'],
    // Ids stay searchable, short numbers (amounts, references, ports) stay readable.
    ['confirm-12345678-1234-4234-9234-123456789012-1', 'confirm-12345678-1234-4234-9234-123456789012-1'],
    ['Ref: TOP/2026/11/00010002, BWP 101.50', 'Ref: TOP/2026/11/00010002, BWP 101.50'],
    ['connect ECONNREFUSED 127.0.0.1:6379', 'connect ECONNREFUSED 127.0.0.1:6379'],
    ['BWP 1000000.50 of 12345678-9', 'BWP 1000000.50 of 12345678-9'],
    // Credentials inside URLs.
    [
      'login POST https://gw:s3cret@vas.example.com/public/v1/auth/login: ECONNREFUSED',
      'login POST https://[redacted]@vas.example.com/public/v1/auth/login: ECONNREFUSED',
    ],
    [
      'redis://:pw@10.0.0.5:6379/2 and http://host/a@b',
      'redis://[redacted]@10.0.0.5:6379/2 and http://host/a@b',
    ],
  ])('%s → %s', (text, masked) => {
    expect(maskNumbersInText(text)).toBe(masked);
  });

  it('applies to every string field and to error messages, whatever the key', () => {
    const masked = redact('meta', {
      smsId: 'p1:settled:26771234567',
      identifier: '01234567890',
      errorMessage: 'provider said: 26771234567 is barred',
      error: new Error('validate: meter 01234567890 unknown'),
      nested: { text: '1*01234567890*100' },
    });
    expect(JSON.stringify(masked)).not.toMatch(/71234567|01234567890/);
    expect(masked).toMatchObject({
      error: { name: 'Error', message: 'validate: meter 012****7890 unknown' },
    });
  });

  it('does not mask words under phone-number keys, nor mask a masked number again', () => {
    // A purchase transition logs its states as `from`/`to`.
    expect(redact('meta', { from: 'confirming', to: 'succeeded' })).toEqual({
      from: 'confirming',
      to: 'succeeded',
    });
    expect(redact('msisdn', maskMsisdn('26771234567'))).toBe('267****4567');
    expect(redact('to', '26771234567')).toBe('267****4567');
  });
});

describe('request ids in log lines', () => {
  it('masks a phone number or a token carried by a request id, from the context or a field', () => {
    const lines: string[] = [];
    const capture = new winston.transports.Stream({
      stream: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    });
    logger.add(capture);
    try {
      const log = componentLogger('test');
      withLogContext({ requestId: 'africastalking-ATUid_+26771234567-1' }, () => log.error('a hop'));
      log.error('a call', { requestId: 'tok-1234 5678 9012 3456 7890' });
    } finally {
      logger.remove(capture);
    }
    const text = lines.join('');
    expect(text).not.toMatch(/71234567|1234 5678 9012/);
    expect(text).toContain('"requestId":"africastalking-ATUid_+267****4567-1"');
    expect(text).toContain('"requestId":"tok-****7890"');
  });
});
