import { newSession, continueAndEnd, readJson, redeliveredStart, type AdapterCases } from '../../wire-cases';
import { infobipAdapter } from './adapter';

/**
 * Source: praekeltfoundation/vumi `vumi/transports/infobip/infobip.py` (the spec's field list
 * quoted in its docstring) and `tests/test_infobip.py` (start/response POST, end PUT with
 * `{"reason": "ok", "exitCode": 0}`, status GET; refusals `{responseExitCode: 400, …}` as HTTP 200).
 */
const body = {
  msisdn: '26771234567',
  text: '*384#',
  shortCode: '*384#',
  imsi: '652010000000000',
  language: 'en',
  ussdGwId: 'gw1',
};

export const infobipCases: AdapterCases = {
  adapter: infobipAdapter,
  refusedWith: 200,
  parse: [
    newSession(
      { body, params: { id: 'ib-1' }, route: '/session/:id/start' },
      { sessionId: 'ib-1', msisdn: '26771234567', serviceCode: '*384#' },
      'new session (start)',
    ),
    {
      name: 'continuation (response, latest input; no shortCode)',
      kind: 'continuation',
      request: {
        body: { msisdn: '26771234567', text: '1' },
        params: { id: 'ib-1' },
        route: '/session/:id/response',
      },
      expect: { hop: { isNew: false, serviceCode: '', text: { kind: 'latest', value: '1' } } },
    },
    {
      name: 'back',
      kind: 'back',
      request: { body: { ...body, text: '0' }, params: { id: 'ib-1' }, route: '/session/:id/response' },
      expect: { hop: { text: { kind: 'latest', value: '0' } } },
    },
    // An end comes by PUT without a number (the path names the session); its exit code says how.
    ...(
      [
        ['ok', 0, 'incomplete'], // vumi's DEFAULT_SESSION_DATA end: the ordinary end
        ['user abort', 200, 'incomplete'],
        ['network', 500, 'failed'],
      ] as const
    ).map(([reason, exitCode, status]) => ({
      name: `end (PUT, no number): exit code ${exitCode} → ${status}`,
      kind: 'end' as const,
      request: {
        method: 'PUT',
        body: { reason, exitCode },
        params: { id: 'ib-1' },
        route: '/session/:id/end',
      },
      expect: { end: { sessionId: 'ib-1', msisdn: null, status } },
    })),
    redeliveredStart({ body, params: { id: 'ib-1' }, route: '/session/:id/start' }, 'ib-1'),
    {
      name: 'malformed: no msisdn',
      kind: 'malformed',
      request: { body: { text: '1' }, params: { id: 'ib-1' }, route: '/session/:id/response' },
      expect: { error: 'missing field: msisdn' },
    },
    {
      name: 'malformed: session id with a newline',
      kind: 'malformed',
      request: { body, params: { id: 'a\nb' }, route: '/session/:id/start' },
      expect: { error: /session id/ },
    },
  ],
  reply: continueAndEnd((ussdMenu, shouldClose) => ({
    body: { ussdMenu, shouldClose, responseExitCode: 200, responseMessage: '' },
  })),
  dialer: {
    start: (s) => ({
      method: 'POST',
      path: `/session/${s.id}/start`,
      body: { ...body, msisdn: s.msisdn, text: s.serviceCode },
    }),
    next: (s, input) => ({
      method: 'POST',
      path: `/session/${s.id}/response`,
      body: { msisdn: s.msisdn, text: input },
    }),
    hangUp: (s) => ({
      method: 'PUT',
      path: `/session/${s.id}/end`,
      body: { reason: 'user abort', exitCode: 200 },
    }),
    read: readJson('ussdMenu', 'shouldClose'),
  },
};
