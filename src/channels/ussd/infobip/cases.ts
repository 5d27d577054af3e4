import type { AdapterCases } from '../wire-cases';
import { infobipAdapter } from './adapter';

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
  parse: [
    {
      name: 'new session (start)',
      kind: 'new',
      request: { body, params: { id: 'ib-1' }, route: '/session/:id/start' },
      expect: { hop: { sessionId: 'ib-1', msisdn: '26771234567', isNew: true, serviceCode: '*384#' } },
    },
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
    {
      name: 'end (PUT, no number)',
      kind: 'end',
      request: {
        method: 'PUT',
        body: { reason: 'user abort', exitCode: 200 },
        params: { id: 'ib-1' },
        route: '/session/:id/end',
      },
      expect: { end: { sessionId: 'ib-1', msisdn: null, status: 'incomplete' } },
    },
    {
      name: 'end with an error exit code',
      kind: 'end',
      request: {
        method: 'PUT',
        body: { reason: 'network', exitCode: 500 },
        params: { id: 'ib-1' },
        route: '/session/:id/end',
      },
      expect: { end: { status: 'failed' } },
    },
    {
      name: 're-delivered start is flagged new again',
      kind: 'redelivery',
      request: { body, params: { id: 'ib-1' }, route: '/session/:id/start' },
      expect: { hop: { sessionId: 'ib-1', isNew: true } },
    },
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
  reply: [
    {
      name: 'continue',
      reply: { text: 'Menu', end: false },
      expect: { body: { ussdMenu: 'Menu', shouldClose: false, responseExitCode: 200, responseMessage: '' } },
    },
    {
      name: 'end',
      reply: { text: 'Bye', end: true },
      expect: { body: { ussdMenu: 'Bye', shouldClose: true, responseExitCode: 200, responseMessage: '' } },
    },
  ],
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
    read: (raw) => {
      const r = JSON.parse(raw) as { ussdMenu: string; shouldClose: boolean };
      return { text: r.ussdMenu, end: r.shouldClose };
    },
  },
};
