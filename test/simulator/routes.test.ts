import { readFileSync } from 'node:fs';
import path from 'node:path';
import axios from 'axios';
import { ussdAdapters } from '../../src/ussd/aggregators/index';
import { inboundSmsAdapters } from '../../src/sms/inbound/adapters';
import { SIMULATOR_PUBLIC } from '../../src/simulator/router';
import type { Gateway } from '../../src/gateway/app';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { startTestGateway } from '../e2e/harness';
import { sandboxServiceEnv } from '../support/sandbox-env';

/**
 * The simulator's routes on a whole gateway over HTTP: served only with dev routes, its config
 * tells the page limits and whether keys are needed but never a secret, its sandbox window
 * passes the embedded sandbox through, and nothing of it reaches a real purchase service.
 */
const get = (url: string, headers: Record<string, string> = {}) =>
  axios.get(url, { headers, validateStatus: () => true, responseType: 'text', transformResponse: (x) => x });

describe('simulator routes, embedded mode', () => {
  const SECRET = 'ussd-secret-for-the-simulator-test';
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      USSD_CALLBACK_SECRET: SECRET,
      USSD_SCREEN_LIMIT_HUBTEL: '160',
      USSD_COMVIVA_USERID: 'flares',
      USSD_COMVIVA_PASSWORD: 'comviva-password-1234',
    });
  });
  afterAll(() => gateway.close());

  it('serves the page and its two files, with a CSP that allows only the gateway', async () => {
    const page = await get(`${gateway.url}/simulator`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.data).toContain('<script src="/simulator/simulator.js" defer></script>');
    expect(page.data).not.toMatch(/https?:\/\//);
    for (const file of ['simulator.js', 'simulator.css']) {
      const asset = await get(`${gateway.url}/simulator/${file}`);
      expect(asset.status).toBe(200);
      expect(asset.data).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    }
    expect((await get(`${gateway.url}/simulator/index.html.bak`)).status).toBe(404);
    expect((await get(`${gateway.url}/simulator/..%2Frouter.ts`)).status).toBe(404);
  });

  it('tells the page each aggregator, its screen limit and whether a key is needed, never a secret', async () => {
    const response = await get(`${gateway.url}/dev/simulator/config`);
    expect(response.status).toBe(200);
    expect(response.data).not.toContain(SECRET);
    expect(response.data).not.toContain('comviva-password-1234');
    const config = JSON.parse(response.data);
    expect(config.aggregators).toEqual(
      expect.arrayContaining([
        { name: 'africastalking', screenLimit: 182, keyRequired: true },
        { name: 'hubtel', screenLimit: 160, keyRequired: true },
      ]),
    );
    expect(config.aggregators.map((a: { name: string }) => a.name)).not.toContain('generic');
    expect(config).toMatchObject({
      comvivaCredentials: true,
      sandbox: true,
      agents: true,
      smsKeyRequired: true,
    });
    expect(config.inbound.map((i: { path: string }) => i.path)).toEqual(['africastalking', 'inbound']);
  });

  it('passes the embedded sandbox through: scenarios, the newest transactions first, faults', async () => {
    const scenarios = JSON.parse((await get(`${gateway.url}/dev/simulator/sandbox/scenarios`)).data);
    expect(scenarios[0]).toMatchObject({ identifier: '01234567890', scenario: '1' });

    const armed = await axios.post(`${gateway.url}/dev/simulator/sandbox/faults`, {
      endpoint: 'confirm',
      fault: 'drop',
    });
    expect(armed.status).toBe(201);
    expect(JSON.parse((await get(`${gateway.url}/dev/simulator/sandbox/faults`)).data)).toMatchObject({
      confirm: { fault: 'drop', remaining: 1 },
    });
    const refused = await axios.post(
      `${gateway.url}/dev/simulator/sandbox/faults`,
      { endpoint: 'confirm', fault: 'meteor' },
      { validateStatus: () => true },
    );
    expect(refused.status).toBe(400);
    expect((await axios.delete(`${gateway.url}/dev/simulator/sandbox/faults`)).status).toBe(204);
    expect(JSON.parse((await get(`${gateway.url}/dev/simulator/sandbox/faults`)).data)).toEqual({});

    expect((await get(`${gateway.url}/dev/simulator/sandbox/transactions?limit=0`)).status).toBe(400);
    expect((await get(`${gateway.url}/dev/simulator/sandbox/transactions?limit=x`)).status).toBe(400);
    expect(JSON.parse((await get(`${gateway.url}/dev/simulator/sandbox/transactions`)).data)).toEqual([]);
  });

  it('makes a demo float agent once, then only a fresh one-time PIN', async () => {
    const first = await axios.post(`${gateway.url}/dev/simulator/agents`, { msisdn: '26773456789' });
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({ msisdn: '26773456789', float: '500.00' });
    expect(first.data.oneTimePin).toMatch(/^\d{4,6}$/);
    const again = await axios.post(`${gateway.url}/dev/simulator/agents`, { msisdn: '26773456789' });
    expect(again.status).toBe(200);
    expect(again.data.float).toBeNull();
    const bad = await axios.post(
      `${gateway.url}/dev/simulator/agents`,
      { msisdn: 'not a number' },
      { validateStatus: () => true },
    );
    expect(bad.status).toBe(400);
  });

  it('passes the payment sandbox through: a phone switched to manual answers, its prompts, the payments', async () => {
    const config = JSON.parse((await get(`${gateway.url}/dev/simulator/config`)).data);
    expect(config.payments).toBe(true);
    const manual = await axios.post(`${gateway.url}/dev/simulator/payments/manual`, {
      msisdn: '26771234500',
    });
    expect(manual).toMatchObject({ status: 201, data: { msisdn: '26771234500', behaviour: 'manual' } });
    const scripted = await axios.post(`${gateway.url}/dev/simulator/payments/manual`, {
      msisdn: '26775900001',
    });
    expect(scripted).toMatchObject({ status: 200, data: { behaviour: 'approve' } });
    const prompts = await get(`${gateway.url}/dev/simulator/payments/prompts?msisdn=26771234500`);
    expect(JSON.parse(prompts.data)).toEqual({ prompts: [] });
    expect((await get(`${gateway.url}/dev/simulator/payments/prompts?msisdn=x`)).status).toBe(400);
    const unknown = await axios.post(
      `${gateway.url}/dev/simulator/payments/prompts/nope/approve`,
      undefined,
      {
        validateStatus: () => true,
      },
    );
    expect(unknown.status).toBe(404);
    expect(JSON.parse((await get(`${gateway.url}/dev/simulator/payments`)).data)).toEqual({
      payments: expect.any(Array),
    });
  });
});

describe('simulator routes without dev routes, and with a real purchase service', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, silent: true });
  });
  afterAll(() => sandbox.close());

  it('are not served when DEV_ROUTES is off', async () => {
    const gateway = await startTestGateway({ DEV_ROUTES: 'false' });
    try {
      expect((await get(`${gateway.url}/simulator`)).status).toBe(404);
      expect((await get(`${gateway.url}/dev/simulator/config`)).status).toBe(404);
    } finally {
      await gateway.close();
    }
  });

  it('need the admin bearer for /dev, and never reach a real service’s operator extras', async () => {
    const token = 'simulator-admin-token-0123456789';
    const gateway = await startTestGateway({
      ...sandboxServiceEnv(sandbox.url),
      ADMIN_TOKEN: token,
      DEV_ROUTES: 'true',
    });
    try {
      expect((await get(`${gateway.url}/simulator`)).status).toBe(200);
      expect((await get(`${gateway.url}/dev/simulator/config`)).status).toBe(401);
      const bearer = { authorization: `Bearer ${token}` };
      const config = JSON.parse((await get(`${gateway.url}/dev/simulator/config`, bearer)).data);
      expect(config).toMatchObject({ sandbox: false, agents: false, payments: false });
      expect((await get(`${gateway.url}/dev/simulator/sandbox/scenarios`, bearer)).status).toBe(404);
      expect((await get(`${gateway.url}/dev/simulator/payments`, bearer)).status).toBe(404);
      const agent = await axios.post(
        `${gateway.url}/dev/simulator/agents`,
        { msisdn: '26773456789' },
        { headers: bearer, validateStatus: () => true },
      );
      expect(agent.status).toBe(404);
    } finally {
      await gateway.close();
    }
  });
});

describe('the page knows every format the gateway serves', () => {
  const page = readFileSync(path.join(SIMULATOR_PUBLIC, 'simulator.js'), 'utf8');
  /** The page's table `name`, from its opening to its closing brace (two-space indent). */
  const table = (name: string): string => {
    const start = page.indexOf(`const ${name} = {`);
    return page.slice(start, page.indexOf('\n  };\n', start));
  };

  it.each(ussdAdapters().map((a) => a.name))('USSD: %s', (name) => {
    expect(table('FORMATS')).toMatch(new RegExp(`\\n    ${name}: \\{`));
  });

  it.each(inboundSmsAdapters.map((a) => a.path))('inbound SMS: /sms/%s', (route) => {
    expect(table('INBOUND')).toMatch(new RegExp(`\\n    ${route}: \\{`));
  });
});
