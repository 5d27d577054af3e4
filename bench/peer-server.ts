/**
 * The benchmark's peer: the same electricity dialogue written the way `ussd-builder`'s README
 * shows it (an express handler calling `menu.run`), with what a real service of that kind does
 * per hop — a menu built per request, the session in Redis (ussd-builder's `sessionConfig`), an
 * HTTP quote call (`validate` on the purchase service, axios with keep-alive) and the Buy queued
 * in Redis. What the gateway costs beyond this is the price of its extra guarantees, or waste.
 */
import http from 'node:http';
import axios from 'axios';
import express from 'express';
import { Redis } from 'ioredis';
import UssdMenu from 'ussd-builder';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = process.env.PEER_PREFIX ?? 'bench-peer';
const SESSION_TTL_S = 180;

const redis = new Redis(REDIS_URL);
const service = axios.create({
  baseURL: process.env.PURCHASE_API_BASE_URL,
  httpAgent: new http.Agent({ keepAlive: true }),
  timeout: 10_000,
});

interface Session {
  token: string;
  accountId: number;
  providerCode: string;
}

async function login(): Promise<Session> {
  const { data: tokens } = await service.post('/public/v1/auth/login', {
    client_id: 'sandbox-client',
    client_secret: 'sandbox-secret',
    grant_type: 'password',
    identifier: 'integration',
    secret_pass: 'sandbox-pass',
    org_code: 'SANDBOX',
    source_channel: 'USSD',
  });
  const headers = { authorization: `Bearer ${tokens.access_token}` };
  const [{ data: accounts }, { data: products }] = await Promise.all([
    service.get('/public/v1/accounts', { headers }),
    service.get('/public/v1/vas-products', { headers }),
  ]);
  const electricity = products.find((p: { product_type: string }) => p.product_type === 'ELECTRICITY');
  return {
    token: tokens.access_token,
    accountId: accounts[0].id,
    providerCode: electricity.providers[0].code,
  };
}

function buildMenu(session: Session): UssdMenu {
  const menu = new UssdMenu();
  const key = (id: string) => `${PREFIX}:session:${id}`;
  menu.sessionConfig({
    start: async () => undefined,
    end: async (id: string) => {
      await redis.del(key(id));
    },
    set: async (id: string, field: string, value: unknown) => {
      await redis.multi().hset(key(id), field, String(value)).expire(key(id), SESSION_TTL_S).exec();
    },
    get: (id: string, field: string) => redis.hget(key(id), field),
  });

  menu.startState({
    run: () => menu.con('Welcome\n1. Electricity\n2. Airtime\n3. Water\n4. My tokens\n5. Language'),
    next: { '1': 'electricity' },
  });
  menu.state('electricity', {
    run: () => menu.con('Enter meter number:'),
    next: { '*\\d{11,13}': 'electricity.meter' },
  });
  menu.state('electricity.meter', {
    run: async () => {
      await menu.session.set('meter', menu.val);
      menu.con('Enter amount (BWP):');
    },
    next: { '*\\d+': 'electricity.amount' },
  });
  menu.state('electricity.amount', {
    run: async () => {
      const meter = (await menu.session.get('meter')) as string;
      // ussd-builder does not await a state's run: a rejection here would end the process.
      let quote: { product?: { name?: string; units?: string }; total_amount?: string };
      try {
        // A keep-alive socket the sandbox closed while idle is reset on reuse: asked again once.
        const validate = () =>
          service.post(
            '/public/v1/purchases/validate',
            {
              source_channel: 'USSD',
              language: 'en-BW',
              product_type: 'ELECTRICITY',
              provider_code: session.providerCode,
              debited_account_id: session.accountId,
              beneficiary_phone_number: menu.args.phoneNumber.replace(/^\+/, ''),
              subscriber_identifier: meter,
              amount: Number(menu.val),
              currency: 'BWP',
            },
            { headers: { authorization: `Bearer ${session.token}` } },
          );
        quote = (
          await validate().catch((error: { code?: string }) => {
            if (error.code !== 'ECONNRESET') throw error;
            return validate();
          })
        ).data;
      } catch {
        menu.end('Service unavailable. Please try again later.');
        return;
      }
      await menu.session.set('amount', menu.val);
      menu.con(
        `${quote.product?.name ?? 'Electricity'}\nMeter ${meter}\nAmount: BWP ${menu.val}\n` +
          `Units: ${quote.product?.units ?? '-'}\nTotal: ${quote.total_amount ?? menu.val}\n1. Buy\n2. Cancel`,
      );
    },
    next: { '1': 'electricity.buy', '2': 'cancel' },
  });
  menu.state('electricity.buy', {
    run: async () => {
      const [meter, amount] = await Promise.all([menu.session.get('meter'), menu.session.get('amount')]);
      await redis.lpush(
        `${PREFIX}:purchases`,
        JSON.stringify({ meter, amount, msisdn: menu.args.phoneNumber, sessionId: menu.args.sessionId }),
      );
      menu.end('Thank you. Your token will arrive by SMS.');
    },
  });
  menu.state('cancel', { run: () => menu.end('Cancelled.') });
  return menu;
}

async function main(): Promise<void> {
  const session = await login();
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.post('/ussd/africastalking', async (req, res) => {
    try {
      const menu = buildMenu(session);
      const reply = await menu.run({
        phoneNumber: req.body.phoneNumber,
        sessionId: req.body.sessionId,
        serviceCode: req.body.serviceCode,
        text: req.body.text,
      });
      res.send(reply);
    } catch {
      // The bench counts an END before the Buy as an error.
      res.send('END Service unavailable. Please try again later.');
    }
  });
  app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  // An orderly exit on the bench's SIGTERM, so that a CPU profile (BENCH_PROFILE) is written.
  process.once('SIGTERM', () => process.exit(0));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
