import express, { Router } from 'express';
import { requireBearer, type AdminCredential } from '../http/secrets';
import { componentLogger, maskMsisdn } from '../observability/logger';
import { normaliseMsisdn, type CountryCode } from '../phone';
import type { BlockKind } from './keys';
import type { SpendStore } from './store';

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
    if (typeof body.kind !== 'string' || !KINDS.includes(body.kind as BlockKind)) {
      res.status(400).json({ error: `kind must be one of: ${KINDS.join(', ')}` });
      return;
    }
    const kind = body.kind as BlockKind;
    const parsed = blockValue(kind, body.value, region);
    if ('error' in parsed) {
      res.status(400).json({ error: parsed.error });
      return;
    }
    const added = await store.block(kind, parsed.value);
    log.warn('blocklist: added', {
      kind,
      value: kind === 'msisdn' ? maskMsisdn(parsed.value) : parsed.value,
    });
    res.status(added ? 201 : 200).json({ kind, value: parsed.value, added });
  });

  admin.delete('/:kind/:value', async (req, res) => {
    const kind = req.params.kind as BlockKind;
    if (!KINDS.includes(kind)) {
      res.status(400).json({ error: `kind must be one of: ${KINDS.join(', ')}` });
      return;
    }
    const parsed = blockValue(kind, req.params.value, region);
    if ('error' in parsed) {
      res.status(400).json({ error: parsed.error });
      return;
    }
    const removed = await store.unblock(kind, parsed.value);
    log.warn('blocklist: removed', {
      kind,
      value: kind === 'msisdn' ? maskMsisdn(parsed.value) : parsed.value,
    });
    res.status(removed ? 200 : 404).json({ kind, value: parsed.value, removed });
  });

  router.use('/admin/blocklist', admin);
  return router;
}
