import { captureLogs } from '../support/logs';
import axios from 'axios';
import { ALL_ADAPTER_CASES } from '../../src/channels/ussd/cases';
import { comvivaCredentialCases } from '../../src/channels/ussd/comviva/cases';
import { GENERIC_MAPPING } from '../../src/channels/ussd/generic/cases';
import { isParseError, isSessionEnd, type UssdAdapter, type UssdHop } from '../../src/channels/ussd/types';
import {
  newDialSession,
  wireRequest,
  type AdapterCases,
  type DialRequest,
  type DialSession,
} from '../../src/channels/ussd/wire-cases';
import type { Gateway } from '../../src/gateway/app';
import { newPhone, startTestGateway } from '../e2e/harness';

/**
 * The one runner of every adapter's wire cases (`src/channels/ussd/<name>/cases.ts`): parse
 * cases, reply cases, and over HTTP a dialogue spoken by the adapter's dialer — whose hops
 * must never log the caller's number unmasked, and whose re-delivered hop changes nothing.
 */

function routeKind(adapter: UssdAdapter, path: string | undefined): 'hop' | 'end' | 'status' {
  const routes = adapter.routes ?? [
    { method: 'POST', path: '', kind: 'hop' as const },
    { method: 'POST', path: '/events', kind: 'end' as const },
  ];
  return routes.find((r) => r.path === (path ?? ''))?.kind ?? 'hop';
}

describe.each(ALL_ADAPTER_CASES.map((c) => [c.adapter.name, c] as const))(
  '%s wire cases',
  (_name, cases: AdapterCases) => {
    const { adapter } = cases;

    test.each(cases.parse.map((c) => [c.name, c] as const))('parse: %s', (_n, c) => {
      const req = wireRequest(c.request);
      const parsed =
        routeKind(adapter, c.request.route) === 'end' ? adapter.parseEnd!(req) : adapter.parseHop(req);
      if ('error' in c.expect) {
        expect(isParseError(parsed)).toBe(true);
        expect((parsed as { error: string }).error).toMatch(c.expect.error);
        return;
      }
      expect(isParseError(parsed)).toBe(false);
      if ('end' in c.expect) {
        expect(isSessionEnd(parsed as UssdHop)).toBe(true);
        expect(parsed).toMatchObject({ aggregator: adapter.name, ...c.expect.end });
      } else {
        expect(isSessionEnd(parsed as UssdHop)).toBe(false);
        expect(parsed).toMatchObject({ aggregator: adapter.name, ...c.expect.hop });
      }
    });

    test.each(cases.reply.map((c) => [c.name, c] as const))('reply: %s', (_n, c) => {
      const hop = c.hop ? adapter.parseHop(wireRequest(c.hop)) : undefined;
      const wire = adapter.formatReply(
        c.reply,
        hop && !isParseError(hop) && !isSessionEnd(hop) ? hop : undefined,
      );
      expect(wire.status).toBe(c.expect.status ?? 200);
      if (c.expect.headers) expect(wire.headers).toEqual(c.expect.headers);
      expect(wire.contentType.startsWith('application/json') ? JSON.parse(wire.body) : wire.body).toEqual(
        c.expect.body,
      );
    });
  },
);

it('Comviva checks userid and password when they are configured', () => {
  const { adapter, good, bad } = comvivaCredentialCases;
  expect(isParseError(adapter.parseHop(wireRequest(good)))).toBe(false);
  expect(adapter.parseHop(wireRequest(bad))).toEqual({ error: 'wrong userid or password' });
});

describe('every adapter over HTTP', () => {
  let gateway: Gateway;
  let logs: ReturnType<typeof captureLogs>;

  beforeAll(async () => {
    gateway = await startTestGateway({
      USSD_GENERIC_MAPPING: GENERIC_MAPPING,
      USSD_SCREEN_LIMIT_HUBTEL: '160',
    });
    logs = captureLogs();
  });
  afterAll(async () => {
    logs.stop();
    await gateway.close();
  });

  async function send(name: string, r: DialRequest) {
    const url = `${gateway.url}/ussd/${name}${r.path}`;
    const data = r.form ? new URLSearchParams(r.body as Record<string, string>).toString() : r.body;
    const response = await axios.request({
      method: r.method,
      url,
      data,
      headers: r.form ? { 'content-type': 'application/x-www-form-urlencoded' } : undefined,
      responseType: 'text',
      transformResponse: [(d: unknown) => d],
      validateStatus: () => true,
    });
    return {
      status: response.status,
      body: String(response.data),
      headers: response.headers as Record<string, string>,
    };
  }

  test.each(ALL_ADAPTER_CASES.map((c) => [c.adapter.name, c] as const))(
    '%s: a dialogue, a re-delivered hop, a bad request, and no unmasked number in the logs',
    async (name, cases) => {
      const { dialer } = cases;
      const session: DialSession = newDialSession(`${name}-${Date.now()}`, newPhone());
      const step = async (r: DialRequest, input?: string) => {
        const res = await send(name, r);
        expect(res.status).toBe(200);
        if (input !== undefined) session.inputs.push(input);
        session.hops += 1;
        return dialer.read(res.body, res.headers);
      };
      const menu = await step(dialer.start(session));
      expect(menu).toMatchObject({ end: false });
      expect(menu.text).toMatch(/^Welcome!/);
      const product = dialer.next(session, '1');
      const prompt = await step(product, '1');
      expect(prompt.text).toMatch(/meter number/i);
      // The same hop again (the aggregator did not get our answer): the same screen, nothing moves.
      session.hops -= 1;
      session.inputs.pop();
      const again = await step(product, '1');
      expect(again).toEqual(prompt);
      if (name === 'hubtel') expect(prompt.text.length).toBeLessThanOrEqual(160);
      const bad = await send(name, {
        ...dialer.start(session),
        body: {},
        path: dialer.start(session).path.replace(/\?.*/, ''),
      });
      expect(bad.status).toBe(400);
      const digits = session.msisdn;
      // The hops were logged (masked), so the check below looks at real lines.
      expect(
        logs.lines.filter((l) => l.includes('"message":"hop"') && l.includes(`"aggregator":"${name}"`))
          .length,
      ).toBeGreaterThan(0);
      expect(logs.lines.filter((l) => l.includes(digits))).toEqual([]);
    },
  );
});
