import { hop } from '../e2e/harness';
import { NodeProcess } from '../support/node-process';
import { FaultTable, judge, phoneFor, World } from './harness';

/**
 * Scale-out: two gateway processes sharing one Redis behind a load balancer that alternates
 * them hop by hop (hop 1 on A, hop 2 on B, …), twenty subscribers at once. Every subscriber
 * sees the screens one instance shows, and each intent is debited once.
 */

const SUBSCRIBERS = 20;

const world = new World();
const table = new FaultTable(__filename);
let a: NodeProcess;
let b: NodeProcess;

beforeAll(async () => {
  await world.start();
  a = new NodeProcess('src/main.ts', world.gatewayEnv());
  b = new NodeProcess('src/main.ts', world.gatewayEnv());
  await Promise.all([a.start(), b.start()]);
});

afterAll(async () => {
  table.write();
  await Promise.all([a?.stop(), b?.stop()]);
  await world.close();
});

/** The whole purchase dialogue; every hop's screen, with the meter and the masked number as `<meter>`, `<phone>`. */
async function screens(
  route: (hop: number) => NodeProcess,
  phone: string,
  session: string,
): Promise<string[]> {
  const meter = world.meter();
  const inputs = ['1', meter, '1', '100', '1'];
  const texts = ['', ...inputs.map((_input, i) => inputs.slice(0, i + 1).join('*'))];
  const seen: string[] = [];
  for (const [i, text] of texts.entries()) {
    const reply = await hop(route(i), session, phone, text);
    expect(reply.status).toBe(200);
    const masked = `${phone.slice(0, 3)}****${phone.slice(-4)}`;
    seen.push(reply.body.split(meter).join('<meter>').split(masked).join('<phone>'));
  }
  return seen;
}

it(`two gateways, hops alternating A, B, A, B…, ${SUBSCRIBERS} subscribers at once`, async () => {
  const single = await screens(() => a, phoneFor(), 'single');
  expect(single.at(-1)).toMatch(/^END /);

  const phones = Array.from({ length: SUBSCRIBERS }, () => phoneFor());
  const started = Date.now();
  const alternated = await Promise.all(
    phones.map((phone, n) => screens((i) => ((i + n) % 2 === 0 ? a : b), phone, `alt-${phone}`)),
  );
  for (const seen of alternated) expect(seen).toEqual(single);
  table.add(
    await judge(world, `two gateways, hops alternating (${SUBSCRIBERS} at once)`, phones, () => started, {
      note: 'time: first hop to last token',
    }),
  );
});
