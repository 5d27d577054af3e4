import { SqlAuditTrail } from '../purchases/care/audit-sql';
import { blockValue } from '../spend/admin';
import { SqlSpendStore } from '../spend/sql';
import type { BlockKind } from '../spend/store';
import { EXIT, misused, parseFlags, runCommand, switches, UsageError, valueFlags, type CliIo } from './kit';

const USAGE = `usage: npm run cli -- blocklist add|remove|list [--msisdn NUMBER | --identifier METER] [--json] [--reveal]
  blocked numbers and identifiers get no quote and no purchase on any channel (needs DATABASE_URL,
  and DATABASE_SCHEMA, as the gateway has them);
  numbers are printed masked unless --reveal (written to the audit trail)`;

/** `blocklist add|remove|list`: the operator's blocklist, as `/admin/blocklist` manages it. */
export async function blocklistCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, {
    ...valueFlags('msisdn', 'identifier'),
    ...switches('json', 'reveal'),
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const action = positionals[0];
  if (!['add', 'remove', 'list'].includes(action ?? '') || positionals.length !== 1)
    return misused(io, USAGE);
  const kind: BlockKind | null =
    values.msisdn !== undefined ? 'msisdn' : values.identifier !== undefined ? 'identifier' : null;
  if (action !== 'list' && (!kind || (values.msisdn !== undefined && values.identifier !== undefined)))
    return misused(io, USAGE, 'give one of --msisdn or --identifier');
  return runCommand(io, 'blocklist', argv, [], async (scope) => {
    const config = scope.config();
    // What to add or remove, checked before the records are opened.
    let entry: { kind: BlockKind; value: string } | undefined;
    if (action !== 'list' && kind) {
      const checked = blockValue(
        kind,
        kind === 'msisdn' ? values.msisdn : values.identifier,
        config.defaultRegion,
      );
      if ('error' in checked) throw new UsageError(checked.error);
      entry = { kind, value: checked.value };
    }
    const records = await scope.records(config, 'use GET/POST /admin/blocklist on the gateway');
    const shown = scope.display(values.reveal, () => new SqlAuditTrail(records));
    const store = new SqlSpendStore(records);
    if (!entry) {
      const lists = await shown({
        msisdn: await store.blocked('msisdn'),
        identifier: await store.blocked('identifier'),
      });
      if (values.json) io.stdout(JSON.stringify(lists, null, 2));
      else
        for (const [listed, list] of Object.entries(lists))
          io.stdout(`${listed}: ${list.length ? list.join(' ') : '(none)'}`);
      return EXIT.ok;
    }
    const changed =
      action === 'add'
        ? await store.block(entry.kind, entry.value)
        : await store.unblock(entry.kind, entry.value);
    const value = (await shown({ [entry.kind]: entry.value }))[entry.kind];
    io.stdout(
      `${entry.kind} ${value} ${action === 'add' ? (changed ? 'blocked' : 'was already blocked') : changed ? 'unblocked' : 'was not blocked'}`,
    );
    return EXIT.ok;
  });
}
