import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { OperatorAccounts } from '../../src/operators/accounts';
import { makeFirstOperator } from '../../src/operators/first-operator';
import { SqlAuditTrail } from '../../src/purchases/care/audit-sql';
import { startTestGateway } from '../e2e/harness';

/**
 * The embedded mode (records in PGlite under DATA_DIR, which only the gateway's process can open):
 * the first start makes the first operator and leaves its one-time password in a 0600 file; a
 * start that finds an operator makes none.
 */
jest.setTimeout(120_000);

it('makes "admin" at the first start, its one-time password in DATA_DIR/secrets only', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'first-operator-'));
  try {
    const first = await startTestGateway({ DATA_DIR: dir });
    let file: string;
    try {
      file = first.firstOperatorFile!;
      expect(file).toBe(join(dir, 'secrets', 'console-admin-password'));
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const password = readFileSync(file, 'utf8').trim();
      const login = await request(first.url).post('/console/api/login').send({ name: 'admin', password });
      expect(login.status).toBe(200);
      expect(login.body.operator).toMatchObject({ name: 'admin', role: 'admin', mustChangePassword: true });
      // Once there is an operator, none is made (a later start of the same records).
      const accounts = new OperatorAccounts({
        db: first.records,
        pepper: Buffer.alloc(32),
        audit: new SqlAuditTrail(first.records),
      });
      expect(await makeFirstOperator(accounts, dir)).toBeNull();
      expect(readFileSync(file, 'utf8').trim()).toBe(password);
    } finally {
      await first.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
