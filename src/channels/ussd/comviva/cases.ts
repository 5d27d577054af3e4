import { continueAndEnd, latestInputSteps, missingField, type AdapterCases } from '../wire-cases';
import { comvivaAdapter } from './adapter';

const q = { SessionID: 'cv-1', MSISDN: '26771234567', MSC: '384', input: '384' };
const adapter = comvivaAdapter();
const locked = comvivaAdapter({ userid: 'gw', password: 'flares-secret-1234' });

const query = (params: Record<string, string>) => `?${new URLSearchParams(params).toString()}`;

export const comvivaCases: AdapterCases = {
  adapter,
  parse: [
    {
      name: 'new session (GET; the short code as input)',
      kind: 'new',
      request: { method: 'GET', query: q },
      expect: {
        hop: {
          sessionId: 'cv-1',
          msisdn: '26771234567',
          serviceCode: '384',
          text: { kind: 'latest', value: '384' },
        },
      },
    },
    ...latestInputSteps((input) => ({ method: 'GET', query: { ...q, input } })),
    {
      name: 'end: clean with a lower-case msisdn',
      kind: 'end',
      request: {
        method: 'GET',
        query: { SessionID: 'cv-1', msisdn: '26771234567', clean: 'clean-up', error: '0' },
      },
      expect: { end: { sessionId: 'cv-1', msisdn: '26771234567', status: 'incomplete' } },
    },
    {
      name: 'end with an error',
      kind: 'end',
      request: {
        method: 'GET',
        query: { SessionID: 'cv-1', msisdn: '26771234567', clean: 'x', error: '34' },
      },
      expect: { end: { status: 'failed' } },
    },
    {
      name: 're-delivery: the same input again (no sequence: the engine compares it with the last)',
      kind: 'redelivery',
      request: { method: 'GET', query: { ...q, input: '1' } },
      expect: { hop: { isNew: false, text: { kind: 'latest', value: '1' } } },
    },
    missingField('SessionID', { method: 'GET', query: { ...q, SessionID: undefined } }),
  ],
  // Freeflow FC continues, FB ends.
  reply: continueAndEnd((body, end) => ({
    headers: { Freeflow: end ? 'FB' : 'FC', charge: 'N', amount: '0' },
    body,
  })),
  dialer: {
    start: (s) => ({
      method: 'GET',
      path: query({ SessionID: s.id, MSISDN: s.msisdn, MSC: '384', input: '384' }),
    }),
    next: (s, input) => ({
      method: 'GET',
      path: query({ SessionID: s.id, MSISDN: s.msisdn, MSC: '384', input }),
    }),
    hangUp: (s) => ({
      method: 'GET',
      path: query({ SessionID: s.id, msisdn: s.msisdn, clean: 'clean-up', error: '0' }),
    }),
    read: (body, headers) => ({ text: body, end: headers.freeflow === 'FB' }),
  },
};

/** With credentials configured: checked on every request. */
export const comvivaCredentialCases = {
  adapter: locked,
  good: { method: 'GET', query: { ...q, userid: 'gw', password: 'flares-secret-1234' } },
  bad: { method: 'GET', query: { ...q, userid: 'gw', password: 'wrong' } },
};
