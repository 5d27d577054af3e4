import { ConfigError, loadConfig } from '../../src/config';

describe('agent configuration', () => {
  it('refuses a dealer registration mode it does not know, naming the variable', () => {
    expect(() => loadConfig({ DEALER_REGISTRATION: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ DEALER_REGISTRATION: 'maybe' })).toThrow(/DEALER_REGISTRATION/);
  });

  it('defaults the limits and reads them in currency units as exact minor units', () => {
    expect(loadConfig({}).agents).toEqual({
      maxSaleMinor: 200_000,
      maxDayValueMinor: 2_000_000,
      maxDayCount: 200,
      currency: 'BWP',
      serviceCodes: [],
      commission: {},
      dealerShareBp: 0,
      summaryTime: null,
      pinSecret: null,
      dealerRegistration: 'approve',
    });
    expect(
      loadConfig({
        AGENT_MAX_SALE: '500.10',
        AGENT_MAX_DAY_VALUE: '7000',
        AGENT_MAX_DAY_COUNT: '20',
        AGENT_CURRENCY: 'ZAR',
        DEALER_REGISTRATION: 'direct',
      }).agents,
    ).toEqual({
      maxSaleMinor: 50_010,
      maxDayValueMinor: 700_000,
      maxDayCount: 20,
      currency: 'ZAR',
      serviceCodes: [],
      commission: {},
      dealerShareBp: 0,
      summaryTime: null,
      pinSecret: null,
      dealerRegistration: 'direct',
    });
    expect(
      loadConfig({
        AGENT_COMMISSION: 'ELECTRICITY:2.5%, AIRTIME:BWP 1.00, water:service 50%, *:1%',
        AGENT_DEALER_SHARE: '20%',
        AGENT_SUMMARY_TIME: '7:30',
      }).agents,
    ).toMatchObject({
      commission: {
        ELECTRICITY: { kind: 'percent', bp: 250 },
        AIRTIME: { kind: 'fixed', minor: 100 },
        WATER: { kind: 'service', bp: 5_000 },
        '*': { kind: 'percent', bp: 100 },
      },
      dealerShareBp: 2_000,
      summaryTime: '07:30',
    });
    expect(loadConfig({ AGENT_COMMISSION: 'service:50%' }).agents.commission).toEqual({
      '*': { kind: 'service', bp: 5_000 },
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
    [{ AGENT_COMMISSION: 'ELECTRICITY:2' }, 'AGENT_COMMISSION'],
    [{ AGENT_COMMISSION: 'GAS:2%' }, 'AGENT_COMMISSION'],
    [{ AGENT_COMMISSION: 'AIRTIME:101%' }, 'AGENT_COMMISSION'],
    [{ AGENT_DEALER_SHARE: 'half' }, 'AGENT_DEALER_SHARE'],
    [{ AGENT_SUMMARY_TIME: '25:00' }, 'AGENT_SUMMARY_TIME'],
  ])('refuses %j naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});
