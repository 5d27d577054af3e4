import express from 'express';
import request from 'supertest';
import { currentRequestId } from '../../src/observability/logger';
import { requestIdMiddleware } from '../../src/observability/request-id';

function app(): express.Express {
  const server = express();
  server.use(requestIdMiddleware());
  server.use(express.urlencoded({ extended: false }));
  server.use(express.json());
  // What a log line written by a handler would carry.
  server.all('/seen', (_req, res) => {
    res.json({ requestId: currentRequestId() ?? null });
  });
  return server;
}

describe('request ids on HTTP requests', () => {
  it('echoes a caller id and carries it into the handler, after body parsing too', async () => {
    const res = await request(app()).post('/seen').set('X-Request-Id', 'caller-42').send({ a: 1 });
    expect(res.headers['x-request-id']).toBe('caller-42');
    expect(res.body).toEqual({ requestId: 'caller-42' });

    const form = await request(app()).post('/seen').set('X-Request-Id', 'form-7').type('form').send('a=1');
    expect(form.body).toEqual({ requestId: 'form-7' });
  });

  it.each([
    ['missing', undefined],
    ['too long', 'x'.repeat(129)],
    ['not printable', 'bad id'],
  ])('generates one when the caller id is %s', async (_label, offered) => {
    const req = request(app()).get('/seen');
    const res = await (offered === undefined ? req : req.set('X-Request-Id', offered));
    expect(res.headers['x-request-id']).toMatch(/^gw-[0-9a-f-]{36}$/);
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
  });
});
