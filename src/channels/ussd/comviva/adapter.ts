import { sameSecret } from '../../../http/secrets';
import type { UssdAdapter, UssdParseError } from '../types';
import { isError, msisdnOf, optionalText, plain, queryOf, sessionIdOf, text } from '../wire';

/**
 * Comviva "Flares" HTTP pull (Airtel operating companies and others): `GET` with query
 * `SessionID`, `MSISDN`, `MSC`, `input` (latest input; the first hop carries the short code
 * without `*`/`#`), optional `userid`/`password`, checked when configured. The end of a session
 * comes to the same URL with `clean` and `error` and a lower-case `msisdn`; it is answered 200
 * with an empty body. Replies are text/plain with `Freeflow: FC` (continue) or `FB` (end), and
 * `charge: N`, `amount: 0`.
 */
const NAME = 'comviva';

export interface ComvivaCredentials {
  userid: string;
  password: string;
}

export function comvivaAdapter(credentials?: ComvivaCredentials): UssdAdapter {
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
      if (query.clean !== undefined || query.error !== undefined) {
        const msisdn = msisdnOf(query, ['msisdn', 'MSISDN']);
        if (isError(msisdn)) return msisdn;
        const error = optionalText(query, 'error');
        return {
          aggregator: NAME,
          sessionId,
          msisdn,
          status: error && error !== '0' ? 'failed' : 'incomplete',
        };
      }
      const msisdn = msisdnOf(query, 'MSISDN');
      if (isError(msisdn)) return msisdn;
      const input = text(query, 'input', { allowEmpty: true });
      if (isError(input)) return input;
      return {
        aggregator: NAME,
        sessionId,
        msisdn,
        serviceCode: optionalText(query, 'MSC') ?? '',
        text: { kind: 'latest', value: input },
        isNew: false,
        raw: query,
      };
    },

    formatReply: (reply) =>
      plain(reply.text, { Freeflow: reply.end ? 'FB' : 'FC', charge: 'N', amount: '0' }),

    formatEndAck: () => plain(''),
  };
}
