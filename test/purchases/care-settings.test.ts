import { ConfigError, loadConfig } from '../../src/config';

/** Customer care's settings as the gateway reads them from the environment. */

const load = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'test', ...env });

it('labels ADMIN_TOKEN "admin" and each ADMIN_TOKENS entry by its own name', () => {
  const config = load({
    ADMIN_TOKEN: 'shared-admin-token-0123',
    ADMIN_TOKENS: 'alice:alice-token-0123456789, bob@desk:bob-token-0123456789',
  });
  expect(config.care.adminCredentials).toEqual([
    { label: 'admin', token: 'shared-admin-token-0123' },
    { label: 'alice', token: 'alice-token-0123456789' },
    { label: 'bob@desk', token: 'bob-token-0123456789' },
  ]);
  expect(load({}).care.adminCredentials).toEqual([]);
});

it.each([
  ['alice', /label:token/],
  ['alice:short', /at least 16 characters/],
  ['alice:alice-token-0123456789,alice:other-token-0123456789', /given twice/],
  ['alice:same-token-0123456789,bob:same-token-0123456789', /each person gets their own/],
])('refuses ADMIN_TOKENS=%s', (value, message) => {
  expect(() => load({ ADMIN_TOKENS: value })).toThrow(ConfigError);
  expect(() => load({ ADMIN_TOKENS: value })).toThrow(message);
});

it('reads the retention in days (RECORD_RETENTION_DAYS, default 1825) and refuses what is not a whole number of days', () => {
  expect(load({}).care.retentionMs).toBe(1825 * 24 * 3600_000);
  expect(load({ RECORD_RETENTION_DAYS: '30' }).care.retentionMs).toBe(30 * 24 * 3600_000);
  for (const bad of ['0', '1.5', 'ninety']) expect(() => load({ RECORD_RETENTION_DAYS: bad })).toThrow();
});

it('parses LOW_BALANCE_ALERT to exact minor units with the money parser', () => {
  expect(load({ LOW_BALANCE_ALERT: 'BWP 5000.10' }).care.lowBalanceAlert).toEqual({
    currency: 'BWP',
    minor: 500010,
  });
  expect(load({}).care.lowBalanceAlert).toBeUndefined();
  for (const bad of ['5000', 'BWP 12.345', 'BWP -1.00', 'bwp 1'])
    expect(() => load({ LOW_BALANCE_ALERT: bad })).toThrow(/LOW_BALANCE_ALERT/);
});
