import { withoutPinShaped } from '../../machines/ussd/shortcut';
import { deferred, Dialogue, INPUT, PRODUCTS, services, TIMEOUT } from '../../machines/ussd/test-kit';
import type { UssdHop } from '../../src/ussd/engine/hop';
import { pinShapedRanges } from '../../src/ussd/engine/input';
import type { SessionRecord } from '../../src/ussd/engine/store/types';
import { planOf, turnOf } from '../../src/ussd/engine/turn';

/**
 * A hop without a record may carry an agent's PIN the engine cannot recognise: `1*<meter>*<PIN>`
 * (an agent's dialogue dialled `*384*1*<meter>#`, lost at the PIN prompt) is a shortcut's shape.
 * The engine stores such a text with every run a PIN could be masked (and later cumulative texts
 * masked alike); the machine keeps an agent's shortcut cut before such a group.
 */

const METER = '01234567890';
const ref = { aggregator: 'africastalking', sessionId: 's1' };
const knows = () => true;

function atHop(text: string): UssdHop {
  return {
    aggregator: 'africastalking',
    sessionId: 's1',
    msisdn: '26771234567',
    serviceCode: '*384#',
    text: { kind: 'cumulative', value: text },
    isNew: text === '',
    ...(text !== '' && { dialled: text }),
    raw: {},
  };
}

/** The record a hop's turn would be stored as, at a screen asking for a secret (the PIN). */
function storedAtPin(text: string): SessionRecord {
  const turn = turnOf(atHop(text), ref, null);
  return {
    machineVersion: '7',
    snapshot: {},
    msisdn: '26771234567',
    serviceCode: '*384#',
    lastText: turn.storedText,
    lastRequestKey: turn.requestKey,
    ...(turn.secretRanges && { secretRanges: turn.secretRanges }),
    secretInput: true,
    lastReply: { text: 'Agent: enter your PIN:', end: false },
    page: 1,
    pages: 1,
    optionIds: [],
    language: 'en',
    status: 'active',
    hops: 1,
    createdAt: 0,
    updatedAt: 0,
  };
}

it('marks every run of 4 to 6 digits, never a longer or shorter one', () => {
  expect(pinShapedRanges(`1*${METER}*5937`)).toEqual([[14, 18]]);
  expect(pinShapedRanges('1*418529*100*26771234567')).toEqual([[2, 8]]);
  expect(pinShapedRanges('*714*1*01234567890*1500#')).toEqual([[19, 23]]);
  expect(pinShapedRanges(`2*71234567*20*1234567`)).toEqual([]);
});

it('stores a record-less shortcut text with its PIN-shaped groups masked, and goes on from it', () => {
  const first = turnOf(atHop(`1*${METER}*5937`), ref, null);
  expect(planOf(first, knows)).toEqual({ kind: 'first' });
  expect(first).toMatchObject({
    storedText: `1*${METER}*####`,
    requestKey: `c:1*${METER}*####`,
    secretRanges: [[14, 18]],
  });
  const record = storedAtPin(`1*${METER}*5937`);
  // The same hop re-sent is a replay; the PIN typed on the prompt is read, and masked too.
  expect(planOf(turnOf(atHop(`1*${METER}*5937`), ref, record), knows)).toEqual({
    kind: 'asIs',
    outcome: 'replay',
  });
  const next = turnOf(atHop(`1*${METER}*5937*5937`), ref, record);
  expect(next).toMatchObject({ storedText: `1*${METER}*####*####` });
  expect(planOf(next, knows)).toEqual({
    kind: 'event',
    event: { type: 'TEXT', text: '5937' },
    samePage: false,
  });
});

it('masks a latest-input hop without a record too (a lost dialogue whose next input is the PIN)', () => {
  const hop: UssdHop = { ...atHop(''), aggregator: 'comviva', text: { kind: 'latest', value: '2846' } };
  const first = turnOf(hop, ref, null);
  expect(first).toMatchObject({ storedText: '####', secretRanges: undefined });
  // That first hop re-sent at once is still a re-delivery, on a screen asking for a secret or not.
  for (const secretInput of [true, false]) {
    const record = { ...storedAtPin(''), lastText: first.storedText, secretInput, updatedAt: Date.now() };
    expect(planOf(turnOf(hop, ref, record), knows)).toEqual({ kind: 'asIs', outcome: 'replay' });
  }
});

it("cuts an agent's shortcut before its first group a PIN could be", () => {
  expect(
    [`1*${METER}*100`, `1*${METER}*5937`, '1*5937', `1*5937*${METER}`, '1', '2*71234567*20'].map(
      withoutPinShaped,
    ),
  ).toEqual([`1*${METER}*100`, `1*${METER}`, '1', '1', '1', '2*71234567*20']);
});

it('a first hop stalled before the caller is known keeps its shortcut cut as well', async () => {
  const never = deferred<typeof PRODUCTS>();
  const { services: svc } = services({ products: () => never.promise });
  const d = new Dialogue(svc, false, { ...INPUT, dialled: `1*${METER}*5937` });
  const start = d.start();
  d.sendNoWait(TIMEOUT);
  await start;
  expect(d.state).toBe('stalled');
  expect(d.snap.context.purchase.shortcut).toBe(`1*${METER}`);
  expect(JSON.stringify(d.snap.context)).not.toContain('5937');
});
