import { captureLogs } from '../support/logs';
import axios from 'axios';
import { ALL_ADAPTER_CASES } from './adapter-cases';
import { ussdAdapters } from '../../src/ussd/aggregators/index';
import { comvivaCredentialCases, comvivaSharedCodeCases } from '../../src/ussd/aggregators/comviva/cases';
import { DIAL_STRING_MAPPING, GENERIC_MAPPING } from '../../src/ussd/aggregators/generic/cases';
import { settledAggregatorSettings } from '../../src/ussd/router';
import { genericAdapter, parseGenericMapping } from '../../src/ussd/aggregators/generic/adapter';
import { isParseError, isSessionEnd, type UssdAdapter, type UssdHop } from '../../src/ussd/types';
import {
  CASE_KINDS,
  newDialSession,
  wireRequest,
  type AdapterCases,
  type DialRequest,
  type DialSession,
} from '../../src/ussd/wire-cases';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { newPhone, startTestGateway } from '../e2e/harness';

/**
 * The one runner of every adapter's wire cases (`src/ussd/aggregators/<name>/cases.ts`): parse
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

it('has one table of wire cases per registered aggregator, in its folder', () => {
  const registered = ussdAdapters({ genericMapping: parseGenericMapping(GENERIC_MAPPING) }).map(
    (a) => a.name,
  );
  expect(ALL_ADAPTER_CASES.map((c) => c.adapter.name).sort()).toEqual([...registered].sort());
});

describe.each(ALL_ADAPTER_CASES.map((c) => [c.adapter.name, c] as const))(
  '%s wire cases',
  (_name, cases: AdapterCases) => {
    const { adapter } = cases;

    it('covers a new session, a continuation, back, the end signal, a re-delivery and a malformed request', () => {
      const covered = new Set(cases.parse.map((c) => c.kind));
      const expected = CASE_KINDS.filter((k) => k !== 'end' || !cases.noEndSignal);
      expect(expected.filter((k) => !covered.has(k))).toEqual([]);
      // A format without an end signal says so, and its dialer cannot hang up either.
      expect(cases.noEndSignal === undefined).toBe(covered.has('end'));
      expect(cases.dialer.hangUp === undefined).toBe(cases.noEndSignal !== undefined);
    });

    test.each(cases.parse.map((c) => [c.name, c] as const))('parse: %s', (_n, c) => {
      const req = wireRequest(c.request);
      const parsed =
        routeKind(adapter, c.request.route) === 'end' ? adapter.parseEnd!(req) : adapter.parseHop(req);
      if ('error' in c.expect) {
        expect(isParseError(parsed)).toBe(true);
        const error = (parsed as { error: string }).error;
        if (typeof c.expect.error === 'string') expect(error).toBe(c.expect.error);
        else expect(error).toMatch(c.expect.error);
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
      if (c.expect.contentType) expect(wire.contentType).toBe(c.expect.contentType);
      expect(wire.contentType.startsWith('application/json') ? JSON.parse(wire.body) : wire.body).toEqual(
        c.expect.body,
      );
    });
  },
);

it('Comviva checks userid and password when they are configured', () => {
  const { adapter, good, bad } = comvivaCredentialCases;
  expect(isParseError(adapter.parseHop(wireRequest(good)))).toBe(false);
  expect(adapter.parseHop(wireRequest(bad))).toEqual({ error: 'wrong userid or password', status: 401 });
});

it('generic: nested fields by dotted path, read and echoed back', () => {
  const adapter = genericAdapter(
    parseGenericMapping(
      JSON.stringify({
        sessionId: 'session.id',
        msisdn: 'session.caller',
        text: 'ussd.input',
        input: 'cumulative',
        end: { field: 'ussd.state', equals: 'END' },
        reply: {
          text: 'ussd.message',
          end: 'ussd.state',
          endValue: 'END',
          continueValue: 'CON',
          echo: ['session.id'],
        },
      }),
    ),
  );
  const request = (ussd: Record<string, unknown>) =>
    wireRequest({ body: { session: { id: 'n-1', caller: '26771234567' }, ussd } });
  const hop = adapter.parseHop(request({ input: '1*2', state: 'CON' }));
  expect(hop).toMatchObject({
    sessionId: 'n-1',
    msisdn: '26771234567',
    isNew: false,
    text: { kind: 'cumulative', value: '1*2' },
  });
  expect(isSessionEnd(hop as UssdHop)).toBe(false);
  expect(adapter.parseHop(request({ input: '', state: 'CON' }))).toMatchObject({ isNew: true });
  expect(adapter.parseHop(request({ state: 'END' }))).toMatchObject({
    sessionId: 'n-1',
    status: 'incomplete',
  });
  expect(adapter.parseHop(wireRequest({ body: { session: { id: 'n-1' }, ussd: { input: '' } } }))).toEqual({
    error: 'missing field: session.caller',
  });
  expect(JSON.parse(adapter.formatReply({ text: 'Menu', end: false }, hop as UssdHop).body)).toEqual({
    session: { id: 'n-1' },
    ussd: { message: 'Menu', state: 'CON' },
  });
});

it.each(comvivaSharedCodeCases.cases.map(([request, hop]) => [request.query.input, request, hop] as const))(
  'Comviva on a shared code (USSD_COMVIVA_SERVICE_CODE=*384*33#): first input %s',
  (_input, request, hop) => {
    expect(comvivaSharedCodeCases.adapter.parseHop(wireRequest(request))).toMatchObject(hop);
    if (!('dialled' in hop))
      expect(comvivaSharedCodeCases.adapter.parseHop(wireRequest(request))).not.toHaveProperty('dialled');
  },
);

describe('generic: an Advanta-style mapping (GET or form, the whole dial string, CON/END text)', () => {
  const adapter = genericAdapter(parseGenericMapping(DIAL_STRING_MAPPING));
  // harrykerry/advanta-africa-apis docs/ussd-api/README.md: USSDCODE=*415#, INPUT=*415*33*1#.
  const advanta = { SESSIONID: 'adv-1', USSDCODE: '*415#', MSISDN: '254712345678' };
  it.each([
    ['*415#', { isNew: true, text: { kind: 'cumulative', value: '' } }],
    ['*415*33#', { isNew: false, dialled: '33', text: { kind: 'cumulative', value: '33' } }],
    ['*415*33*1#', { isNew: false, text: { kind: 'cumulative', value: '33*1' } }],
  ])('GET INPUT=%s', (INPUT, hop) => {
    expect(adapter.parseHop(wireRequest({ method: 'GET', query: { ...advanta, INPUT } }))).toMatchObject({
      sessionId: 'adv-1',
      msisdn: '254712345678',
      serviceCode: '*415#',
      ...hop,
    });
  });
  it('a form POST reads the same; the reply is CON/END text', () => {
    const hop = adapter.parseHop(wireRequest({ body: { ...advanta, USSDCODE: '415', INPUT: '*415*1#' } }));
    expect(hop).toMatchObject({ text: { kind: 'cumulative', value: '1' }, dialled: '1' });
    expect(adapter.formatReply({ text: 'Menu', end: false }, hop as UssdHop)).toMatchObject({
      contentType: 'text/plain; charset=utf-8',
      body: 'CON Menu',
    });
    expect(adapter.formatReply({ text: 'Bye', end: true }).body).toBe('END Bye');
  });
  it('a latest-input gateway whose first hop is the dial string: the code given in the mapping', () => {
    const latest = genericAdapter(
      parseGenericMapping(
        JSON.stringify({
          sessionId: 'sid',
          msisdn: 'from',
          text: 'ussd',
          input: 'latest',
          newSession: { field: 'new', equals: 1 },
          strip: { code: '*384#' },
          reply: { text: 'text', end: 'last' },
        }),
      ),
    );
    const hop = (body: Record<string, unknown>) =>
      latest.parseHop(wireRequest({ method: 'GET', query: body }));
    expect(hop({ sid: 'l-1', from: '26771234567', ussd: '*384*1*01234567890#', new: '1' })).toMatchObject({
      isNew: true,
      dialled: '1*01234567890',
    });
    // A later hop's input is read as typed, never as a shortcut; a typed 384 is no dialled code.
    expect(hop({ sid: 'l-1', from: '26771234567', ussd: '12', new: '0' })).not.toHaveProperty('dialled');
    expect(hop({ sid: 'l-1', from: '26771234567', ussd: '384', new: '0' })).toMatchObject({
      text: { kind: 'latest', value: '384' },
    });
  });
});

it('an aggregator gets its documented screen limit unless its own variable says (never above the gateway-wide one)', () => {
  const adapters = [{ name: 'nalo', screenLimit: 120 }, { name: 'hubtel' }];
  expect(settledAggregatorSettings(adapters, {}, 182)).toEqual({ nalo: { screenLimit: 120 } });
  expect(settledAggregatorSettings(adapters, { nalo: { screenLimit: 160 } }, 182)).toEqual({
    nalo: { screenLimit: 160 },
  });
  expect(settledAggregatorSettings(adapters, { nalo: { callbackSecret: 's' } }, 100)).toEqual({
    nalo: { callbackSecret: 's' },
  });
  expect(ussdAdapters().find((a) => a.name === 'nalo')?.screenLimit).toBe(120);
});

it.each([
  [{ text: 'screen', end: 'screen' }, 'reply.end: the text and the end flag need two fields'],
  [{ end: 'close' }, 'reply.text: a JSON reply needs its text and end fields'],
  [
    { text: 'screen', end: 'close', endValue: 1, continueValue: 1 },
    'reply.endValue: endValue and continueValue must differ',
  ],
])('generic: a mapping that cannot work is refused in one line (%j)', (reply, message) => {
  const mapping = { sessionId: 's', msisdn: 'm', text: 't', input: 'latest', reply };
  expect(() => parseGenericMapping(JSON.stringify(mapping))).toThrow(message);
});

it('generic: stripping the dialled code needs to know the code', () => {
  const mapping = { sessionId: 's', msisdn: 'm', text: 't', input: 'cumulative', strip: { code: true } };
  expect(() => parseGenericMapping(JSON.stringify({ ...mapping, reply: { format: 'conEnd' } }))).toThrow(
    'strip.code: stripping the dialled code needs the serviceCode field, or the code itself',
  );
});

describe('every adapter over HTTP', () => {
  let gateway: Gateway;
  let logs: ReturnType<typeof captureLogs>;

  beforeAll(async () => {
    gateway = await startTestGateway({
      USSD_GENERIC_MAPPING: GENERIC_MAPPING,
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
    '%s: a dialogue, a re-delivered hop, a bad request, a hang-up, and no unmasked number in the logs',
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
      const start = dialer.start(session);
      const menu = await step(start);
      expect(menu).toMatchObject({ end: false });
      expect(menu.text).toMatch(/^Welcome!/);
      // The start re-sent (Safaricom repeats it): the menu again.
      session.hops -= 1;
      expect(await step(start)).toEqual(menu);
      const product = dialer.next(session, '1');
      const prompt = await step(product, '1');
      expect(prompt.text).toMatch(/meter number/i);
      // The same hop again (the aggregator did not get our answer): the same screen, nothing moves.
      session.hops -= 1;
      session.inputs.pop();
      const again = await step(product, '1');
      expect(again).toEqual(prompt);
      // Nothing moved: the next input is read on the meter prompt (then who gets the token).
      expect((await step(dialer.next(session, TEST_METERS.active), TEST_METERS.active)).text).toMatch(
        /^Send the token to:/,
      );
      const bad = await send(name, {
        ...dialer.start(session),
        body: {},
        path: dialer.start(session).path.replace(/\?.*/, ''),
      });
      expect(bad.status).toBe(cases.refusedWith ?? 400);
      expect(bad.body).toMatch(/field \w+|missing field: \w+/);
      // The hang-up too (its end is logged with the number).
      if (dialer.hangUp) expect((await send(name, dialer.hangUp(session))).status).toBe(200);
      const digits = session.msisdn;
      // The hops were logged (masked), so the check below looks at real lines.
      expect(
        logs.lines.filter((l) => l.includes('"message":"hop"') && l.includes(`"aggregator":"${name}"`))
          .length,
      ).toBeGreaterThan(0);
      if (dialer.hangUp)
        expect(
          logs.lines.filter(
            (l) => l.includes('"message":"session ended"') && l.includes(`"requestId":"${name}-`),
          ).length,
        ).toBeGreaterThan(0);
      expect(logs.lines.filter((l) => l.includes(digits))).toEqual([]);
    },
  );

  it('infobip: the status ask says whether the dialogue waits, end by POST too, refusals in its own error shape', async () => {
    const id = `ibs-${Date.now()}`;
    const status = async () =>
      JSON.parse((await send('infobip', { method: 'GET', path: `/session/${id}/status` })).body);
    const body = { msisdn: newPhone(), text: '*384#' };
    expect((await send('infobip', { method: 'POST', path: `/session/${id}/start`, body })).status).toBe(200);
    expect(await status()).toEqual({ sessionActive: true, responseExitCode: 200, responseMessage: '' });
    const end = {
      method: 'POST' as const, // the end-to-end table ends Infobip dialogues by PUT
      path: `/session/${id}/end`,
      body: { reason: 'user abort', exitCode: 200 },
    };
    expect((await send('infobip', end)).status).toBe(200);
    expect(await status()).toEqual({ sessionActive: false, responseExitCode: 200, responseMessage: '' });
    const bad = await send('infobip', {
      method: 'POST',
      path: `/session/${id}/response`,
      body: { text: '1' },
    });
    // Answered as vumi's Infobip transport does (send_error): HTTP 200, the refusal in the body.
    expect(bad.status).toBe(200);
    expect(JSON.parse(bad.body)).toEqual({ responseExitCode: 400, responseMessage: 'missing field: msisdn' });
  });

  it('hubtel: ClientState echoed, a number field for a menu, and a Timeout that no late hop undoes', async () => {
    const base = { SessionId: `hto-${Date.now()}`, Mobile: newPhone(), ServiceCode: '384', Operator: 'mtn' };
    const hop = async (body: Record<string, unknown>) =>
      JSON.parse((await send('hubtel', { method: 'POST', path: '', body: { ...base, ...body } })).body);
    expect(
      await hop({ Type: 'Initiation', Message: '*384#', Sequence: 1, ClientState: 'c-1' }),
    ).toMatchObject({
      Type: 'Response',
      ClientState: 'c-1',
      DataType: 'input',
      FieldType: 'number',
    });
    expect(await hop({ Type: 'Response', Message: '1', Sequence: 2, ClientState: 'c-2' })).toMatchObject({
      Type: 'Response',
      Message: expect.stringMatching(/meter number/i),
      ClientState: 'c-2',
      FieldType: 'text',
    });
    expect(await hop({ Type: 'timeout', Message: '', Sequence: 3 })).toMatchObject({ Type: 'Release' });
    expect(await hop({ Type: 'Response', Message: TEST_METERS.active, Sequence: 4 })).toMatchObject({
      Type: 'Release',
      Message: 'This session has ended. Please dial again.',
      DataType: 'display',
    });
  });
});
