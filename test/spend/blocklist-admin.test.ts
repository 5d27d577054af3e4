import express from 'express';
import request from 'supertest';
import { SqlSpendStore } from '../../src/spend';
import { blocklistRouter } from '../../src/spend/admin';
import { testPglite } from '../support/database';

/**
 * `/admin/blocklist` over HTTP on the SQL store (embedded PGlite): an entry is added and removed
 * by the same rules, and a bad kind or value is refused with a 400 that says why, changing nothing.
 */

const TOKEN = 'blocklist-admin-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

let pglite: Awaited<ReturnType<typeof testPglite>>;
let app: express.Express;
beforeAll(async () => {
  pglite = await testPglite();
  app = express().use(blocklistRouter(new SqlSpendStore(pglite.db), TOKEN, 'BW'));
});
afterAll(() => pglite.cleanup());

const listed = async () => (await request(app).get('/admin/blocklist').set(auth).expect(200)).body;

it('blocks a number (normalised), says when it already was, unblocks it, then 404', async () => {
  const add = () =>
    request(app).post('/admin/blocklist').set(auth).send({ kind: 'msisdn', value: '71 234 567' });
  expect((await add().expect(201)).body).toEqual({ kind: 'msisdn', value: '26771234567', added: true });
  expect((await add().expect(200)).body).toMatchObject({ added: false });
  await request(app)
    .delete('/admin/blocklist/msisdn/26771234567')
    .set(auth)
    .expect(200, { kind: 'msisdn', value: '26771234567', removed: true });
  await request(app).delete('/admin/blocklist/msisdn/26771234567').set(auth).expect(404);
});

it.each([
  ['POST', 'an unknown kind', { kind: 'email', value: 'x' }, 'kind must be one of: msisdn, identifier'],
  ['POST', 'no kind', { value: '26771234567' }, 'kind must be one of: msisdn, identifier'],
  [
    'POST',
    'a bad identifier',
    { kind: 'identifier', value: 'a;b' },
    'an identifier is letters, digits and dashes',
  ],
  ['DELETE', 'an unknown kind', '/admin/blocklist/email/x', 'kind must be one of: msisdn, identifier'],
  ['DELETE', 'not a number', '/admin/blocklist/msisdn/abc', 'not a phone number: abc'],
])('%s with %s: 400 naming it, nothing changed', async (method, _what, sent, error) => {
  const before = await listed();
  const call =
    method === 'POST'
      ? request(app)
          .post('/admin/blocklist')
          .set(auth)
          .send(sent as object)
      : request(app)
          .delete(sent as string)
          .set(auth);
  expect((await call.expect(400)).body).toEqual({ error });
  expect(await listed()).toEqual(before);
});
