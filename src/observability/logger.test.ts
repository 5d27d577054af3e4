import { Writable } from 'node:stream';
import winston from 'winston';
import {
  componentLogger,
  logger,
  maskMsisdn,
  maskNumbersInText,
  maskToken,
  redact,
  setLogFormat,
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

describe('LOG_FORMAT: json for collectors, pretty for a person, masked alike', () => {
  /** What the logger writes for the same calls, in each format. */
  function linesIn(format: 'json' | 'pretty' | 'pretty-on-a-terminal'): string {
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
    setLogFormat(format);
    try {
      const log = componentLogger('sales');
      withLogContext({ requestId: 'hop-26771234567-2' }, () =>
        log.error('quote refused', { msisdn: '26771234567', token: '1234 5678 9012 3456 7890', amount: 100 }),
      );
      log.error('login failed', { password: 'hunter2', error: new Error('no meter for 26771234567') });
      log.error('gateway started', {
        url: 'http://127.0.0.1:3000',
        records: 'embedded PostgreSQL (PGlite) in /home/someone/gateway/data/postgres',
      });
    } finally {
      setLogFormat('json');
      logger.remove(capture);
    }
    return lines.join('');
  }

  it('pretty: time, level, component, message and the fields; long ones one a line', () => {
    const time = String.raw`\d\d:\d\d:\d\d\.\d{3}`;
    const lines = linesIn('pretty').trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          String.raw`^${time} error \[sales\] quote refused \(hop-267\*{4}4567-2\) msisdn=267\*{4}4567 token=\*{4}7890 amount=100$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          String.raw`^${time} error \[sales\] login failed password=\[redacted\] error="Error: no meter for 267\*{4}4567"$`,
        ),
      ),
      expect.stringMatching(new RegExp(String.raw`^${time} error \[sales\] gateway started$`)),
      '    url: http://127.0.0.1:3000',
      '    records: embedded PostgreSQL (PGlite) in /home/someone/gateway/data/postgres',
    ]);
  });

  it('the same masking in both: no number, token or secret in either', () => {
    const json = linesIn('json');
    const pretty = linesIn('pretty');
    for (const text of [json, pretty]) expect(text).not.toMatch(/71234567|1234 5678|hunter2/);
    expect(JSON.parse(json.split('\n')[0]!)).toMatchObject({ msisdn: '267****4567', token: '****7890' });
    expect(JSON.parse(json.split('\n')[1]!)).toMatchObject({ password: '[redacted]' });
    for (const value of ['267****4567', '****7890', '[redacted]']) expect(pretty).toContain(value);
    expect(JSON.parse(json.split('\n')[1]!)).toMatchObject({
      error: { message: 'no meter for 267****4567' },
    });
  });

  it('pretty-on-a-terminal: pretty while stdout is a terminal, JSON when it is not', () => {
    const wasTty = process.stdout.isTTY;
    try {
      process.stdout.isTTY = false;
      expect(() => JSON.parse(linesIn('pretty-on-a-terminal').split('\n')[0]!)).not.toThrow();
      process.stdout.isTTY = true;
      // On a terminal the level is coloured.
      const line = linesIn('pretty-on-a-terminal').split('\n')[0]!;
      expect(line.slice(13)).toBe(
        '\u001b[31merror\u001b[0m [sales] quote refused (hop-267****4567-2) msisdn=267****4567 token=****7890 amount=100',
      );
    } finally {
      process.stdout.isTTY = wasTty;
    }
  });
});
