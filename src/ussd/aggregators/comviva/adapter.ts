import { sameSecret } from '../../../http/secrets';
import { wireTable } from '../../../http/wire-table';
import type { UssdAdapter, UssdParseError, UssdSessionEnd } from '../../types';
import {
  afterDialledCode,
  isError,
  msisdnOf,
  optionalText,
  plain,
  queryOf,
  sessionIdOf,
  text,
} from '../../wire';

/**
 * Comviva "Flares" HTTP pull (Airtel operating companies and others): `GET` with query
 * `SessionID`, `MSISDN`, `MSC` (the switching centre's address, not the service code), `input`
 * (the latest input; the first hop carries the dialled string without `*`/`#`, extension
 * included: `*384*1#` → `384*1`), optional `userid`/`password`, checked when configured. An empty
 * `input` is the hop sent again. The end of a session comes to the same URL with `clean` and
 * `error` and a lower-case `msisdn`; it is answered 200 with an empty body. Replies are
 * text/plain with `Freeflow: FC` (continue) or `FB` (end), and `charge: N`, `amount: 0`.
 */
const NAME = 'comviva';

export interface ComvivaCredentials {
  userid: string;
  password: string;
}

export interface ComvivaSettings {
  credentials?: ComvivaCredentials;
  /**
   * The code the service is reached on (`*384*33#` on a shared code): what the first `input`
   * holds after it is a shortcut. Unset: the first group of digits is the code.
   */
  serviceCode?: string;
}

/**
 * `error` values of the ordinary end of a session: `0`, and the 522/523 that production
 * cleanups carry (vumi's tests, "as seen in production"). Their meaning is not public; any other
 * value counts as failed (resumable all the same).
 */
const NORMAL_END = wireTable<UssdSessionEnd['status']>({
  0: 'incomplete',
  522: 'incomplete',
  523: 'incomplete',
});

/** `384*1*01234567890` → the code and what was dialled after it (Flares drops the `*` and `#`). */
function dialledOf(input: string, serviceCode?: string): { serviceCode: string; dialled?: string } {
  if (!/^\d+(\*\d*)*$/.test(input)) return { serviceCode: '' };
  const configured = serviceCode === undefined ? undefined : afterDialledCode(input, serviceCode);
  if (configured !== undefined)
    return { serviceCode: serviceCode!, ...(configured !== '' && { dialled: configured }) };
  const [code, ...rest] = input.split('*');
  return { serviceCode: `*${code}#`, ...(rest.length > 0 && { dialled: rest.join('*') }) };
}

export function comvivaAdapter(settings: ComvivaSettings = {}): UssdAdapter {
  const { credentials } = settings;
  function checkCredentials(query: Record<string, unknown>): UssdParseError | null {
    if (!credentials) return null;
    const userid = optionalText(query, 'userid') ?? '';
    const password = optionalText(query, 'password') ?? '';
    return userid === credentials.userid && sameSecret(password, credentials.password)
      ? null
      : { error: 'wrong userid or password', status: 401 };
  }

  return {
    name: NAME,
    checksCredentials: credentials !== undefined,
    routes: [{ method: 'GET', path: '', kind: 'hop' }],

    parseHop(req) {
      const query = queryOf(req);
      const refused = checkCredentials(query);
      if (refused) return refused;
      const sessionId = sessionIdOf(query, 'SessionID');
      if (isError(sessionId)) return sessionId;
      if (query.clean !== undefined) {
        const msisdn = msisdnOf(query, ['msisdn', 'MSISDN']);
        if (isError(msisdn)) return msisdn;
        const error = optionalText(query, 'error') ?? '0';
        return { aggregator: NAME, sessionId, msisdn, status: NORMAL_END.get(error) ?? 'failed' };
      }
      const msisdn = msisdnOf(query, 'MSISDN');
      if (isError(msisdn)) return msisdn;
      const input = text(query, 'input', { allowEmpty: true });
      if (isError(input)) return input;
      // The first hop's dialled string; the engine reads the code and shortcut only without a record.
      const dialled = dialledOf(input, settings.serviceCode);
      return {
        aggregator: NAME,
        sessionId,
        msisdn,
        ...dialled,
        text: { kind: 'latest', value: input },
        isNew: false,
        ...(input === '' && { repeat: true }),
        raw: query,
      };
    },

    formatReply: (reply) =>
      plain(reply.text, { Freeflow: reply.end ? 'FB' : 'FC', charge: 'N', amount: '0' }),

    formatEndAck: () => plain(''),
  };
}
