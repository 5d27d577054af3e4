import { MemoryOutboxStore, createSmsSender, smsSenderConfigFrom, type SmsSenderConfig } from './index';

describe('createSmsSender', () => {
  test.each<[SmsSenderConfig['driver'], SmsSenderConfig]>([
    ['outbox', { driver: 'outbox' }],
    [
      'africastalking',
      { driver: 'africastalking', baseUrl: 'http://127.0.0.1:9', username: 'u', apiKey: 'k', timeoutMs: 100 },
    ],
    ['http', { driver: 'http', url: 'http://127.0.0.1:9/sms', timeoutMs: 100 }],
    [
      'smpp',
      {
        driver: 'smpp',
        host: '127.0.0.1',
        port: 9,
        systemId: 's',
        password: 'p',
        sourceAddr: 'POWER',
        enquireLinkMs: 30000,
      },
    ],
  ])('%s', async (name, config) => {
    const sender = createSmsSender(config, { outbox: new MemoryOutboxStore() });
    expect(sender.name).toBe(name);
    await sender.close?.();
  });

  it('the outbox sender writes to the injected store', async () => {
    const outbox = new MemoryOutboxStore();
    const sender = createSmsSender(
      { driver: 'outbox' },
      { outbox, now: () => new Date('2025-01-01T00:00:00Z') },
    );
    await sender.send({ id: '1', to: '26771234567', message: 'hi' });
    expect(await outbox.list()).toMatchObject([{ id: '1', createdAt: '2025-01-01T00:00:00.000Z' }]);
  });
});

describe('smsSenderConfigFrom', () => {
  const base = { senderId: 'POWER', africastalking: undefined, smpp: undefined, http: undefined };
  test.each<[string, Parameters<typeof smsSenderConfigFrom>[0], SmsSenderConfig]>([
    ['outbox', { ...base, driver: 'outbox' }, { driver: 'outbox' }],
    [
      'africastalking',
      {
        ...base,
        driver: 'africastalking',
        africastalking: { baseUrl: 'https://at', username: 'u', apiKey: 'k' },
      },
      {
        driver: 'africastalking',
        baseUrl: 'https://at',
        username: 'u',
        apiKey: 'k',
        from: 'POWER',
        timeoutMs: 10000,
      },
    ],
    [
      'smpp',
      { ...base, driver: 'smpp', smpp: { host: 'h', port: 2775, systemId: 's', password: 'p' } },
      {
        driver: 'smpp',
        host: 'h',
        port: 2775,
        systemId: 's',
        password: 'p',
        sourceAddr: 'POWER',
        enquireLinkMs: 30000,
      },
    ],
    [
      'http',
      { ...base, driver: 'http', http: { url: 'https://hook', token: 't' } },
      { driver: 'http', url: 'https://hook', bearerToken: 't', from: 'POWER', timeoutMs: 10000 },
    ],
  ])('%s', (_label, sms, expected) => {
    expect(smsSenderConfigFrom(sms)).toEqual(expected);
  });

  it('names the missing settings', () => {
    expect(() => smsSenderConfigFrom({ ...base, driver: 'smpp' })).toThrow(/SMPP_HOST/);
  });
});
