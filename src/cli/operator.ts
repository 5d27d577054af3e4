import { SqlAuditTrail } from '../purchases/care/audit-sql';
import {
  OperatorAccounts,
  OperatorExistsError,
  OperatorInputError,
  OperatorNotFoundError,
  type Operator,
} from '../operators/accounts';
import { passwordPepperFor } from '../operators/pepper';
import { ROLES } from '../operators/roles';
import { EXIT, misused, parseFlags, runCommand, switches, UsageError, valueFlags, type CliIo } from './kit';

const USAGE = `usage: npm run cli -- operator <command> [flags]
  (the console's accounts, /console; needs DATABASE_URL and DATABASE_SCHEMA as the gateway has
  them, and the same OPERATOR_PASSWORD_PEPPER; in the embedded mode, with the gateway stopped)
  add --name NAME --role ROLE   a new operator; prints a one-time password, changed at the first
                             login. Roles: ${ROLES.join(', ')}
  list                       every operator, its role and status
  reset --name NAME          a new one-time password; the lockout cleared, its sessions ended
  disable --name NAME        no more login; its sessions and tokens stop at once
  enable --name NAME         allowed to log in again
  token --name NAME [--label TEXT]   a personal API token (Authorization: Bearer …), shown once
  revoke-tokens --name NAME  every token of the operator stops working
every change is written to the audit trail   --json`;

const COMMANDS = ['add', 'list', 'reset', 'disable', 'enable', 'token', 'revoke-tokens'];

const line = (o: Operator) =>
  `${o.name}  ${o.role}  ${o.status}${o.mustChangePassword ? '  (one-time password not yet changed)' : ''}${
    o.lockedUntil && Date.parse(o.lockedUntil) > Date.now() ? `  locked until ${o.lockedUntil}` : ''
  }`;

/** `npm run cli -- operator add|list|reset|disable|enable|token|revoke-tokens`. */
export async function operatorCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, { ...valueFlags('name', 'role', 'label'), ...switches('json') });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [command, ...extra] = positionals;
  if (!COMMANDS.includes(command ?? '') || extra.length > 0) return misused(io, USAGE);
  if (command !== 'list' && values.name === undefined)
    return misused(io, USAGE, `${command} needs --name NAME`);
  if (command === 'add' && values.role === undefined) return misused(io, USAGE, 'add needs --role ROLE');
  const errors = [OperatorInputError, OperatorExistsError, OperatorNotFoundError];
  return runCommand(io, 'operator', argv, errors, async (scope) => {
    const config = scope.config();
    // With PostgreSQL and no pepper set, the gateway's pepper lives in its memory only: a
    // password made here with another would never let its operator in.
    if (config.records.url && !config.console.passwordPepper && (command === 'add' || command === 'reset'))
      throw new UsageError(
        'with DATABASE_URL, set OPERATOR_PASSWORD_PEPPER as the gateway has it (32+ characters): without it a password made here does not work there',
      );
    const records = await scope.records(config);
    const accounts = new OperatorAccounts({
      db: records,
      pepper: passwordPepperFor(
        config.console.passwordPepper,
        config.records.url ? undefined : config.records.dataDir,
      ),
      audit: new SqlAuditTrail(records),
    });
    const out = (value: object, text: string[]) => {
      if (values.json) io.stdout(JSON.stringify(value, null, 2));
      else for (const t of text) io.stdout(t);
    };
    const by = scope.actor;
    switch (command) {
      case 'list': {
        const list = await accounts.list();
        out(
          list,
          list.length === 0 ? ['no operators (operator add --name NAME --role admin)'] : list.map(line),
        );
        break;
      }
      case 'add':
      case 'reset': {
        const made =
          command === 'add'
            ? await accounts.add(values.name, values.role, by)
            : await accounts.reset(values.name, by);
        out(made, [
          line(made.operator),
          `one-time password: ${made.password}`,
          'hand it over in person; it must be changed at the first login (/console)',
        ]);
        break;
      }
      case 'disable':
      case 'enable': {
        const operator =
          command === 'disable'
            ? await accounts.disable(values.name, by)
            : await accounts.enable(values.name, by);
        out(operator, [line(operator)]);
        break;
      }
      case 'token': {
        const made = await accounts.createToken(values.name, values.label, by);
        out(made, [`token of ${made.operator.name} (${made.operator.role}), shown once: ${made.token}`]);
        break;
      }
      default: {
        const revoked = await accounts.revokeTokens(values.name, by);
        out({ revoked }, [`${revoked} token(s) revoked`]);
      }
    }
    return EXIT.ok;
  });
}
