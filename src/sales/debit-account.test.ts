import { startSandbox, type RunningSandbox } from '../sandbox';
import { createPurchaseService, type PurchaseService } from '../vas';
import { loadConfig } from '../config';
import { debitAccountLookup } from './debit-account';

/** The debit-account lookup against the real sandbox: one call for a burst, cached after. */
let sandbox: RunningSandbox;
let service: PurchaseService;
let calls = 0;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  const real = createPurchaseService({ ...loadConfig({}).purchaseApi, baseUrl: sandbox.url });
  service = {
    ...real,
    listProducts: (ctx) => real.listProducts(ctx),
    getAccount: (id, ctx) => real.getAccount(id, ctx),
    validate: (r, ctx) => real.validate(r, ctx),
    confirm: (r, ctx) => real.confirm(r, ctx),
    retry: (r, ctx) => real.retry(r, ctx),
    listAccounts: (ctx) => {
      calls += 1;
      return real.listAccounts(ctx);
    },
  };
});
afterAll(() => sandbox.close());

it('asks the service once for a burst of concurrent first hops, then serves the cache', async () => {
  const lookup = debitAccountLookup(service, undefined);
  const accounts = await Promise.all(Array.from({ length: 50 }, () => lookup()));
  expect(new Set(accounts.map((a) => a.id))).toEqual(new Set([1001]));
  expect(calls).toBe(1);
  await lookup();
  expect(calls).toBe(1);
});
