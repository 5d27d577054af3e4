import express, { Router } from 'express';
import { requireBearer, type AdminCredential } from '../http/secrets';
import { componentLogger, maskMsisdn } from '../observability/logger';
import { normaliseMsisdn, type CountryCode } from '../phone';
import type { BlockKind, SpendStore } from './store';

const log = componentLogger('admin');

const KINDS: readonly BlockKind[] = ['msisdn', 'identifier'];

/** A number as E.164 digits, an identifier as typed (spaces removed); or what is wrong. */
export function blockValue(
  kind: BlockKind,
  raw: unknown,
  region: string,
): { value: string } | { error: string } {
  if (typeof raw !== 'string' || raw.trim() === '' || raw.length > 64)
    return { error: 'value must be a non-empty string of at most 64 characters' };
  if (kind === 'identifier') {
    const value = raw.replace(/\s+/g, '');
    return /^[A-Za-z0-9-]+$/.test(value)
      ? { value }
      : { error: 'an identifier is letters, digits and dashes' };
  }
  const n = normaliseMsisdn(raw, region as CountryCode);
  return n.ok ? { value: n.e164 } : { error: `not a phone number: ${raw}` };
}

/** A blocklist entry from a request: a known kind and a value of that kind; or what is wrong. */
function entryOf(
  kind: unknown,
  raw: unknown,
  region: string,
): { kind: BlockKind; value: string } | { error: string } {
  if (typeof kind !== 'string' || !KINDS.includes(kind as BlockKind))
    return { error: `kind must be one of: ${KINDS.join(', ')}` };
  const parsed = blockValue(kind as BlockKind, raw, region);
  return 'error' in parsed ? parsed : { kind: kind as BlockKind, value: parsed.value };
}

/** What the log shows of an entry: a number masked. */
const logged = ({ kind, value }: { kind: BlockKind; value: string }) => ({
  kind,
  value: kind === 'msisdn' ? maskMsisdn(value) : value,
});

/**
 * `/admin/blocklist` (bearer ADMIN_TOKEN): `GET` both lists; `POST {kind, value}` blocks a
 * number (`msisdn`) or an identifier; `DELETE /<kind>/<value>` unblocks. Blocked numbers and
 * identifiers get no quote and no purchase on any channel.
 */
export function blocklistRouter(
  store: SpendStore,
  adminToken: string | readonly AdminCredential[],
  region: string,
): Router {
  const router = Router();
  const admin = Router();
  admin.use(requireBearer(adminToken));
  admin.use(express.json({ limit: '4kb' }));

  admin.get('/', async (_req, res) => {
    const [msisdn, identifier] = await Promise.all([store.blocked('msisdn'), store.blocked('identifier')]);
    res.json({ msisdn, identifier });
  });

  admin.post('/', async (req, res) => {
    const body = (req.body ?? {}) as { kind?: unknown; value?: unknown };
    const entry = entryOf(body.kind, body.value, region);
    if ('error' in entry) {
      res.status(400).json({ error: entry.error });
      return;
    }
    const added = await store.block(entry.kind, entry.value);
    log.warn('blocklist: added', logged(entry));
    res.status(added ? 201 : 200).json({ ...entry, added });
  });

  admin.delete('/:kind/:value', async (req, res) => {
    const entry = entryOf(req.params.kind, req.params.value, region);
    if ('error' in entry) {
      res.status(400).json({ error: entry.error });
      return;
    }
    const removed = await store.unblock(entry.kind, entry.value);
    log.warn('blocklist: removed', logged(entry));
    res.status(removed ? 200 : 404).json({ ...entry, removed });
  });

  router.use('/admin/blocklist', admin);
  return router;
}
