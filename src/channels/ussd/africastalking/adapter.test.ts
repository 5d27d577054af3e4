import type { UssdHttpRequest } from '../types';
import { africasTalkingAdapter as at } from './adapter';

const post = (body: unknown): UssdHttpRequest => ({ method: 'POST', body, query: {}, headers: {} });
const hopForm = {
  sessionId: 'ATUid_0a1b2c',
  phoneNumber: '+26771234567',
  networkCode: '99999',
  serviceCode: '*384*44135#',
  text: '',
};

describe("Africa's Talking hop parsing", () => {
  test.each([
    {
      label: 'first hop (empty text)',
      body: hopForm,
      hop: { sessionId: 'ATUid_0a1b2c', msisdn: '26771234567', isNew: true, text: '', network: '99999' },
    },
    {
      label: 'later hop, cumulative text kept whole',
      body: { ...hopForm, text: '1*2*04123456789' },
      hop: { isNew: false, text: '1*2*04123456789' },
    },
    {
      label: 'text with a typed star stays as sent',
      body: { ...hopForm, text: '1*2**7' },
      hop: { text: '1*2**7' },
    },
    {
      label: 'no networkCode is fine',
      body: { ...hopForm, networkCode: undefined },
      hop: { network: undefined },
    },
  ])('$label', ({ body, hop }) => {
    const parsed = at.parseHop(post(body));
    expect(parsed).not.toHaveProperty('error');
    const { text, ...rest } = hop;
    expect(parsed).toMatchObject({ aggregator: 'africastalking', serviceCode: '*384*44135#', ...rest });
    if (text !== undefined) expect(parsed).toMatchObject({ text: { kind: 'cumulative', value: text } });
  });

  test.each([
    {
      label: 'not a form body',
      req: post('sessionId=x'),
      error: 'expected an application/x-www-form-urlencoded body',
    },
    { label: 'GET', req: { ...post(hopForm), method: 'GET' }, error: 'expected POST' },
    {
      label: 'missing sessionId',
      req: post({ ...hopForm, sessionId: undefined }),
      error: 'missing field: sessionId',
    },
    {
      label: 'blank sessionId',
      req: post({ ...hopForm, sessionId: '  ' }),
      error: 'missing field: sessionId',
    },
    {
      label: 'sessionId with a brace',
      req: post({ ...hopForm, sessionId: 'AT}x' }),
      error: 'field sessionId has unexpected characters',
    },
    {
      label: 'missing phoneNumber',
      req: post({ ...hopForm, phoneNumber: undefined }),
      error: 'missing field: phoneNumber',
    },
    {
      label: 'phoneNumber too short',
      req: post({ ...hopForm, phoneNumber: '+12345' }),
      error: 'field phoneNumber must be an E.164 number (+ and 7 to 15 digits)',
    },
    {
      label: 'phoneNumber with letters',
      req: post({ ...hopForm, phoneNumber: '+2677abc' }),
      error: 'field phoneNumber must be an E.164 number (+ and 7 to 15 digits)',
    },
    {
      label: 'missing serviceCode',
      req: post({ ...hopForm, serviceCode: undefined }),
      error: 'missing field: serviceCode',
    },
    { label: 'missing text', req: post({ ...hopForm, text: undefined }), error: 'missing field: text' },
    {
      label: 'repeated text field',
      req: post({ ...hopForm, text: ['1', '2'] }),
      error: 'field text must be a single value',
    },
    {
      label: 'text too long',
      req: post({ ...hopForm, text: '1'.repeat(1001) }),
      error: 'field text is longer than 1000 characters',
    },
  ])('refuses $label', ({ req, error }) => {
    expect(at.parseHop(req)).toEqual({ error });
  });
});

describe("Africa's Talking replies", () => {
  test.each([
    {
      label: 'continue',
      reply: { text: 'Choose:\n1. Electricity', end: false },
      body: 'CON Choose:\n1. Electricity',
    },
    { label: 'end', reply: { text: 'Thank you.', end: true }, body: 'END Thank you.' },
  ])('$label', ({ reply, body }) => {
    expect(at.formatReply(reply)).toEqual({ status: 200, contentType: 'text/plain; charset=utf-8', body });
  });
});

describe("Africa's Talking end-of-session notifications", () => {
  const endForm = {
    sessionId: 'ATUid_0a1b2c',
    serviceCode: '*384*44135#',
    networkCode: '99999',
    phoneNumber: '+26771234567',
    input: '1*2',
    hopsCount: '3',
    durationInMillis: '12000',
    lastAppResponse: 'CON Enter amount',
    errorMessage: '',
    cost: '0',
    date: '2024-05-03 06:04:45',
  };

  test.each([
    { status: 'Success', mapped: 'completed' },
    { status: 'Incomplete', mapped: 'incomplete' },
    { status: 'Failed', mapped: 'failed' },
  ])('$status → $mapped', ({ status, mapped }) => {
    expect(at.parseEnd!(post({ ...endForm, status }))).toEqual({
      aggregator: 'africastalking',
      sessionId: 'ATUid_0a1b2c',
      msisdn: '26771234567',
      status: mapped,
    });
  });

  test.each([
    { label: 'missing status', body: endForm, error: 'missing field: status' },
    {
      label: 'unknown status',
      body: { ...endForm, status: 'constructor' },
      error: 'field status must be Success, Incomplete or Failed',
    },
    {
      label: 'missing phoneNumber',
      body: { ...endForm, status: 'Success', phoneNumber: undefined },
      error: 'missing field: phoneNumber',
    },
  ])('refuses $label', ({ body, error }) => {
    expect(at.parseEnd!(post(body))).toEqual({ error });
  });
});

describe("Africa's Talking phone numbers", () => {
  it.each([
    ['+26771234567', '26771234567'],
    // A `+` sent without URL-encoding arrives as a space.
    [' 26771234567', '26771234567'],
  ])('reads %j as %s', (phoneNumber, msisdn) => {
    expect(at.parseHop(post({ ...hopForm, phoneNumber }))).toMatchObject({ msisdn });
  });
});
