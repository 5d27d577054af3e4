import express from 'express';
import request from 'supertest';
import { EXIT, main } from '../../src/cli/main';
import { SqlAuditTrail } from '../../src/purchases/care/audit-sql';
import type { Database, Queryable } from '../../src/records/database';
import { NoticeBoard, NoticeInputError } from '../../src/subscribers/notice';
import { noticeRoutes } from '../../src/subscribers/notice-routes';
import { testDatabase, type TestDatabase } from '../support/database';

/** The operator's notice on the menu (issue 31 §4) on PostgreSQL. */

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase('notice');
});
afterAll(() => t.cleanup());
beforeEach(() => t.db.query('DELETE FROM operator_notices'));

let now = new Date('2026-06-01T08:00:00Z');
const clock = () => now;

/** The records seen through a counter of statements. */
function counted(db: Database): { db: Database; statements: () => number } {
  let n = 0;
  const on = (q: Queryable): Queryable => ({
    query: (text, params) => {
      n += 1;
      return q.query(text, params);
    },
  });
  return {
    db: {
      ...db,
      kind: db.kind,
      query: on(db).query,
      transaction: (w) => db.transaction((tx) => w(on(tx))),
      transactionInOneTrip: (w) => db.transactionInOneTrip((tx) => w(on(tx))),
      withAdvisoryLock: db.withAdvisoryLock.bind(db),
      close: db.close.bind(db),
    },
    statements: () => n,
  };
}

it('shows the notice per language (or one for all) until it ends, with no database call per ask', async () => {
  now = new Date('2026-06-01T08:00:00Z');
  const watched = counted(t.db);
  const audit = new SqlAuditTrail(t.db);
  const board = new NoticeBoard({ db: watched.db, audit, clock });
  await board.start();
  expect(board.currentNotice('en')).toBeNull();

  await board.set({ '*': 'Tokens are slow today; they may take up to an hour' }, '2h', 'alice');
  expect(board.currentNotice('en')).toBe('Tokens are slow today; they may take up to an hour');
  expect(board.currentNotice('tn-BW')).toBe('Tokens are slow today; they may take up to an hour');

  await board.set(
    { en: 'Tokens are slow today', tn: 'Ditokene di bonya gompieno' },
    '2026-06-01T12:00+02:00',
    'bob',
  );
  const before = watched.statements();
  for (let i = 0; i < 100; i += 1) {
    expect(board.currentNotice('tn-BW')).toBe('Ditokene di bonya gompieno');
    expect(board.currentNotice('en-BW')).toBe('Tokens are slow today');
  }
  // The hop path asks from memory: no statement reached the records.
  expect(watched.statements()).toBe(before);

  // It ends on time, on this instance's clock, without a read.
  now = new Date('2026-06-01T10:00:01Z');
  expect(board.currentNotice('en')).toBeNull();
  board.stop();

  const entries = await audit.list({ limit: 5 });
  expect(entries.map((e) => [e.actor, e.action])).toEqual([
    ['bob', 'notice_set'],
    ['alice', 'notice_set'],
  ]);
  expect(entries[0].detail).toContain('[tn] Ditokene di bonya gompieno');
});

it('another instance sees a notice set or cleared elsewhere at its next read', async () => {
  now = new Date('2026-06-01T08:00:00Z');
  const audit = new SqlAuditTrail(t.db);
  const here = new NoticeBoard({ db: t.db, audit, clock });
  const there = new NoticeBoard({ db: t.db, audit, clock });
  await there.start();
  await here.set({ '*': 'Maintenance tonight' }, '1d', 'alice');
  expect(there.currentNotice('en')).toBeNull();
  await there.refresh();
  expect(there.currentNotice('en')).toBe('Maintenance tonight');
  expect(await here.clear('alice')).toBe(true);
  await there.refresh();
  expect(there.currentNotice('en')).toBeNull();
  there.stop();
});

it('refuses a notice it cannot show: too long, not on a keypad screen, no end or one in the past', async () => {
  now = new Date('2026-06-01T08:00:00Z');
  const board = new NoticeBoard({ db: t.db, audit: new SqlAuditTrail(t.db), clock });
  await expect(board.set({ '*': 'x'.repeat(81) }, '1h', 'a')).rejects.toThrow(NoticeInputError);
  await expect(board.set({ '*': 'Token 🙂' }, '1h', 'a')).rejects.toThrow(NoticeInputError);
  await expect(board.set({ '*': 'ok' }, undefined, 'a')).rejects.toThrow(NoticeInputError);
  await expect(board.set({ '*': 'ok' }, '2026-05-01T00:00Z', 'a')).rejects.toThrow('in the future');
  await expect(board.set({ '*': 'ok' }, '2026-06-01T18:00', 'a')).rejects.toThrow('with its zone');
  await expect(board.set({ '*': 'ok' }, '31d', 'a')).rejects.toThrow('30 days');
  await expect(board.set({ FR: 'ok' }, '1h', 'a')).rejects.toThrow('language');
  expect(await board.show()).toEqual([]);
});

describe('GET/PUT/DELETE /admin/notice', () => {
  const app = () => {
    const a = express();
    a.use(
      noticeRoutes(new NoticeBoard({ db: t.db, audit: new SqlAuditTrail(t.db) }), [
        { label: 'carol', token: 'x'.repeat(32) },
      ]),
    );
    return a;
  };
  const auth = { Authorization: `Bearer ${'x'.repeat(32)}` };

  it('sets, shows and clears the notice, behind the admin token, audited with who did it', async () => {
    await request(app()).get('/admin/notice').expect(401);
    const put = await request(app())
      .put('/admin/notice')
      .set(auth)
      .send({ texts: { en: 'Slow tokens', tn: 'Ditokene di bonya' }, until: '3h' })
      .expect(200);
    expect(put.body.notice.map((n: { language: string }) => n.language)).toEqual(['en', 'tn']);
    const got = await request(app()).get('/admin/notice').set(auth).expect(200);
    expect(got.body.notice[0]).toMatchObject({ language: 'en', text: 'Slow tokens', setBy: 'carol' });
    await request(app())
      .put('/admin/notice')
      .set(auth)
      .send({ text: 'x', texts: { en: 'y' }, until: '1h' })
      .expect(400);
    await request(app()).put('/admin/notice').set(auth).send({ text: 'x', until: 'tomorrow' }).expect(400);
    const notJson = request(app()).put('/admin/notice').set(auth).set('Content-Type', 'application/json');
    expect((await notJson.send('{"text":').expect(400)).body).toEqual({
      error: 'bad_request',
      message: 'request body must be JSON',
    });
    expect((await request(app()).delete('/admin/notice').set(auth).expect(200)).body).toEqual({
      cleared: true,
    });
    expect((await request(app()).get('/admin/notice').set(auth).expect(200)).body).toEqual({ notice: [] });
    const [cleared] = await new SqlAuditTrail(t.db).list({ limit: 1 });
    expect(cleared).toMatchObject({ actor: 'carol', action: 'notice_clear' });
  });
});

it('npm run cli -- notice set|show|clear', async () => {
  const run = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['notice', ...argv], {
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
      env: { NODE_ENV: 'test', DATABASE_URL: t.url, DATABASE_SCHEMA: t.schema, USER: 'dave' },
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  const set = await run(['set', 'Tokens are slow today', '--until', '2h']);
  expect(set).toMatchObject({ code: EXIT.ok, err: '' });
  expect(set.out).toMatch(/^\[\*\] until .+: Tokens are slow today {2}\(set by cli:dave\)$/);
  const perLanguage = await run(['set', '--en', 'Slow', '--tn', 'Bonya', '--until', '1h']);
  expect(perLanguage.out.split('\n')).toHaveLength(2);
  expect((await run(['show'])).out).toContain('[tn] until');
  expect(await run(['set', 'x', '--until', 'soon'])).toMatchObject({ code: EXIT.usage });
  expect(await run(['set', '--until', '1h'])).toMatchObject({ code: EXIT.usage });
  expect(await run(['clear'])).toMatchObject({ code: EXIT.ok, out: 'notice cleared' });
  expect(await run(['show'])).toMatchObject({ code: EXIT.ok, out: 'no notice' });
});
