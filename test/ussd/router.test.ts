import type { IncomingMessage, ServerResponse } from 'node:http';
import request from 'supertest';
import { setup } from 'xstate';
import { africasTalkingAdapter } from '../../src/ussd/aggregators/africastalking/adapter';
import { infobipAdapter } from '../../src/ussd/aggregators/infobip/adapter';
import { FALLBACK_END, ussdCallbacks, type UssdRouterOptions } from '../../src/ussd/router';
import { loadLocales } from '../../src/i18n';
import { createHopEngine, type HopEngine } from '../../src/ussd/engine/engine';
import { RedisSessionStore } from '../../src/ussd/engine/store';
import { keysUnder, testRedis } from '../support/redis';
import { createTestMachine } from '../session/test-machine';

const locales = loadLocales();
const SECRET = 's3cret-key';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The USSD callbacks as the gateway's server runs them: anything else falls through (here a 404). */
function appWith(engine: UssdRouterOptions['engine'], options: Partial<UssdRouterOptions> = {}): Listener {
  const ussd = ussdCallbacks({
    engine,
    adapters: [africasTalkingAdapter],
    callbackSecret: SECRET,
    ...options,
  });
  return (req, res) => {
    if (ussd(req, res)) return;
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not ours');
  };
}

const form = (text: string, overrides: Record<string, string> = {}) => ({
  sessionId: 'ATUid_r1',
  phoneNumber: '+26771234567',
  networkCode: '99999',
  serviceCode: '*384*1#',
  text,
  ...overrides,
});

describe('USSD router over HTTP', () => {
  let redis: ReturnType<typeof testRedis>;
  let engine: HopEngine;
  let app: Listener;

  beforeEach(() => {
    redis = testRedis();
    engine = createHopEngine({
      store: new RedisSessionStore(redis.redis, redis.prefix),
      machine: createTestMachine({
        lookups: 0,
        lookup: async () => 'ok',
        never: () => new Promise(() => undefined),
      }),
      machineVersion: 'test-1',
      locales,
      screenLimit: 182,
      hopBudgetMs: 5000,
      sessionTtlS: 300,
      resumeWindowS: 120,
      defaultLanguage: 'en-BW',
    });
    app = appWith(engine);
  });
  afterEach(async () => {
    await redis.cleanup();
  });

  const hop = (text: string, overrides: Record<string, string> = {}) =>
    request(app).post(`/ussd/africastalking?key=${SECRET}`).type('form').send(form(text, overrides));

  it('plays a dialogue: CON screens then END, text/plain', async () => {
    const first = await hop('');
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/plain/);
    expect(first.text).toMatch(/^CON .*\n1 Slow lookup/s);
    expect((await hop('2')).text).toMatch(/^CON Enter your name:/);
    expect((await hop('2*Thabo')).text).toBe('END Hello Thabo');
    // Re-delivered: same reply.
    expect((await hop('2*Thabo')).text).toBe('END Hello Thabo');
  });

  it.each([
    ['no phoneNumber', { phoneNumber: '' }, 'missing field: phoneNumber'],
    [
      'a phoneNumber that is not a number',
      { phoneNumber: '+2677abc' },
      'field phoneNumber must be an E.164 number (+ and 7 to 15 digits)',
    ],
    ['no sessionId', { sessionId: '' }, 'missing field: sessionId'],
    ['no serviceCode', { serviceCode: '' }, 'missing field: serviceCode'],
  ])('refuses a hop with %s: 400 naming it, nothing stored', async (_label, overrides, message) => {
    const res = await hop('', overrides);
    expect(res.status).toBe(400);
    expect(res.text).toBe(message);
    expect(await keysUnder(redis.redis, redis.prefix)).toEqual([]);
  });

  it('refuses a JSON or broken body with 400 and stores nothing', async () => {
    const json = await request(app)
      .post(`/ussd/africastalking?key=${SECRET}`)
      .set('content-type', 'application/json')
      .send('{"sessionId": ');
    expect(json.status).toBe(400);
    expect(json.text).toBe('malformed request body');
    const empty = await request(app).post(`/ussd/africastalking?key=${SECRET}`);
    expect(empty.status).toBe(400);
    expect(await keysUnder(redis.redis, redis.prefix)).toEqual([]);
  });

  it('matches routes as express did: any case, a trailing slash; other paths and methods are not its own', async () => {
    const post = (url: string) => request(app).post(url).type('form').send(form(''));
    expect((await post(`/USSD/AfricasTalking/?key=${SECRET}`)).text).toMatch(/^CON /);
    expect((await post(`/ussd/africastalkingX?key=${SECRET}`)).text).toBe('not ours');
    expect((await post(`/ussd?key=${SECRET}`)).text).toBe('not ours');
    expect((await request(app).get(`/ussd/africastalking?key=${SECRET}`)).text).toBe('not ours');
  });

  it('reads a form with a charset, refuses a body over 16 KB (413) and another charset (415)', async () => {
    const withCharset = await request(app)
      .post(`/ussd/africastalking?key=${SECRET}`)
      .set('content-type', 'application/x-www-form-urlencoded; charset=UTF-8')
      .send(new URLSearchParams(form('')).toString());
    expect(withCharset.text).toMatch(/^CON /);
    const huge = await request(app)
      .post(`/ussd/africastalking?key=${SECRET}`)
      .type('form')
      .send(form('', { text: '1'.repeat(17 * 1024) }));
    expect(huge.status).toBe(413);
    const latin1 = await request(app)
      .post(`/ussd/africastalking?key=${SECRET}`)
      .set('content-type', 'application/x-www-form-urlencoded; charset=latin1')
      .send('sessionId=x');
    expect(latin1.status).toBe(415);
    const plain = await request(app)
      .post(`/ussd/africastalking?key=${SECRET}`)
      .set('content-type', 'text/plain')
      .send('sessionId=ATUid_r9');
    expect(plain.status).toBe(400);
    expect(plain.text).toBe('expected an application/x-www-form-urlencoded body');
  });

  it("answers a body that cannot be read in the aggregator's own error shape (Infobip), storing nothing", async () => {
    const infobip = appWith(engine, { adapters: [infobipAdapter] });
    const res = await request(infobip)
      .post(`/ussd/infobip/session/ib-1/start?key=${SECRET}`)
      .set('content-type', 'application/json')
      .send('{"msisdn": ');
    // HTTP 200 with the refusal in the body, as Infobip's gateway is answered (vumi send_error).
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ responseExitCode: 400, responseMessage: 'malformed request body' });
    expect(await keysUnder(redis.redis, redis.prefix)).toEqual([]);
    // A malformed escape in a path parameter is taken as sent, not a crash.
    const odd = await request(infobip)
      .post(`/ussd/infobip/session/%E0%A4%A/start?key=${SECRET}`)
      .set('content-type', 'application/json')
      .send('{"msisdn": ');
    expect(odd.body).toMatchObject({ responseExitCode: 400 });
  });

  it('accepts the secret as ?key= or X-Callback-Key, refuses it missing or wrong', async () => {
    const send = (url: string, header?: string) => {
      const r = request(app).post(url).type('form');
      if (header) r.set('X-Callback-Key', header);
      return r.send(form(''));
    };
    expect((await send('/ussd/africastalking')).status).toBe(401);
    expect((await send('/ussd/africastalking?key=wrong')).status).toBe(401);
    expect((await send('/ussd/africastalking', 'wrong')).status).toBe(401);
    expect(await keysUnder(redis.redis, redis.prefix)).toEqual([]);
    expect((await send('/ussd/africastalking', SECRET)).status).toBe(200);
    expect((await send(`/ussd/africastalking?key=${SECRET}`)).status).toBe(200);
    expect((await send('/ussd/africastalking/events?key=wrong')).status).toBe(401);
  });

  it('applies the IP allow-list to hops and events', async () => {
    const open = appWith(engine, { allowedIps: ['127.0.0.1', '::1'] });
    const closed = appWith(engine, { allowedIps: ['10.1.2.3'] });
    const url = `/ussd/africastalking?key=${SECRET}`;
    expect((await request(open).post(url).type('form').send(form(''))).status).toBe(200);
    expect((await request(closed).post(url).type('form').send(form(''))).status).toBe(403);
    expect(
      (await request(closed).post(`/ussd/africastalking/events?key=${SECRET}`).type('form').send(form('')))
        .status,
    ).toBe(403);
  });

  it('takes an Incomplete end notification and offers to resume in the next session', async () => {
    await hop('');
    await hop('2');
    const ended = await request(app)
      .post(`/ussd/africastalking/events?key=${SECRET}`)
      .type('form')
      .send({ ...form('2'), status: 'Incomplete', input: '2', hopsCount: '2', durationInMillis: '9000' });
    expect(ended.status).toBe(200);
    const next = await hop('', { sessionId: 'ATUid_r2' });
    expect(next.text).toBe(
      `CON ${locales.t('en', 'resume.prompt')}\n1 ${locales.t('en', 'resume.yes')}\n2 ${locales.t('en', 'resume.no')}`,
    );
    expect((await hop('1', { sessionId: 'ATUid_r2' })).text).toMatch(/^CON Enter your name:/);
  });

  it('refuses a malformed end notification with 400', async () => {
    const res = await request(app)
      .post(`/ussd/africastalking/events?key=${SECRET}`)
      .type('form')
      .send({ ...form(''), status: 'Maybe' });
    expect(res.status).toBe(400);
    expect(res.text).toBe('field status must be Success, Incomplete or Failed');
  });

  it('answers a polite END in the default language when the dialogue machine breaks', async () => {
    const broken = createHopEngine({
      store: new RedisSessionStore(redis.redis, redis.prefix),
      machine: setup({}).createMachine({
        context: () => {
          throw new Error('machine exploded');
        },
      }),
      machineVersion: 'test-1',
      locales,
      screenLimit: 182,
      hopBudgetMs: 5000,
      sessionTtlS: 300,
      resumeWindowS: 120,
      defaultLanguage: 'en-BW',
    });
    const res = await request(appWith(broken))
      .post(`/ussd/africastalking?key=${SECRET}`)
      .type('form')
      .send(form(''));
    expect(res.status).toBe(200);
    expect(res.text).toBe(`END ${locales.t('en', 'error.serviceUnavailable')}`);
    expect(await keysUnder(redis.redis, redis.prefix)).not.toContainEqual(expect.stringContaining(':rec'));
  });

  it('answers a polite END, never a 500, when the engine throws', async () => {
    const throwing = {
      handleHop: async () => {
        throw new Error('redis down');
      },
      sessionActive: async () => {
        throw new Error('redis down');
      },
      endSession: async () => {
        throw new Error('redis down');
      },
    };
    const res = await request(appWith(throwing))
      .post(`/ussd/africastalking?key=${SECRET}`)
      .type('form')
      .send(form(''));
    expect(res.status).toBe(200);
    expect(res.text).toBe(`END ${FALLBACK_END}`);
    expect(res.text).not.toMatch(/redis down|at /);
    const ended = await request(appWith(throwing))
      .post(`/ussd/africastalking/events?key=${SECRET}`)
      .type('form')
      .send({ ...form(''), status: 'Success' });
    expect(ended.status).toBe(200);
  });
});
