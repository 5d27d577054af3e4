import { ConfigError, loadConfig } from '../../src/config';

describe('agent configuration', () => {
  it('defaults the limits and reads them in currency units as exact minor units', () => {
    expect(loadConfig({}).agents).toEqual({
      maxSaleMinor: 200_000,
      maxDayValueMinor: 2_000_000,
      maxDayCount: 200,
      currency: 'BWP',
      serviceCodes: [],
    });
    expect(
      loadConfig({
        AGENT_MAX_SALE: '500.10',
        AGENT_MAX_DAY_VALUE: '7000',
        AGENT_MAX_DAY_COUNT: '20',
        AGENT_CURRENCY: 'ZAR',
      }).agents,
    ).toEqual({
      maxSaleMinor: 50_010,
      maxDayValueMinor: 700_000,
      maxDayCount: 20,
      currency: 'ZAR',
      serviceCodes: [],
    });
    expect(loadConfig({ AGENT_SERVICE_CODES: '*384*9#, 385 ,*386*2' }).agents.serviceCodes).toEqual([
      '384*9',
      '385',
      '386*2',
    ]);
  });

  it.each([
    [{ AGENT_MAX_SALE: '5.001' }, 'AGENT_MAX_SALE'],
    [{ AGENT_MAX_DAY_VALUE: '-1' }, 'AGENT_MAX_DAY_VALUE'],
    [{ AGENT_MAX_DAY_COUNT: '0' }, 'AGENT_MAX_DAY_COUNT'],
    [{ AGENT_CURRENCY: 'pula' }, 'AGENT_CURRENCY'],
    [{ AGENT_SERVICE_CODES: '*384#,agents' }, 'AGENT_SERVICE_CODES'],
  ])('refuses %j naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});
