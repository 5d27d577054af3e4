import type { UssdAdapter, UssdHop, UssdHttpRequest, UssdParseError, UssdReply } from '../types';
import { isError, msisdnOf, optionalText, queryOf, sessionIdOf, text, type Fields } from '../wire';

/**
 * Safaricom-style CON/END (Safaricom direct, Advanta and other Kenyan gateways): `SESSION_ID` or
 * `SESSIONID`, `MSISDN` or `ORIG`, `USSD_PARAMS` or `INPUT` (cumulative, `*`-joined, like
 * Africa's Talking: the same prefix derivation), `DEST` or `USSDCODE`; form/JSON POST or GET.
 * Reply `CON …` / `END …` as text/plain.
 */
const NAME = 'safaricom';

function fieldsOf(req: UssdHttpRequest): Fields {
  return req.method === 'GET' || req.body === null || typeof req.body !== 'object'
    ? queryOf(req)
    : (req.body as Fields);
}

export const safaricomAdapter: UssdAdapter = {
  name: NAME,
  routes: [
    { method: 'POST', path: '', kind: 'hop' },
    { method: 'GET', path: '', kind: 'hop' },
  ],

  parseHop(req: UssdHttpRequest): UssdHop | UssdParseError {
    const fields = fieldsOf(req);
    const sessionId = sessionIdOf(fields, ['SESSION_ID', 'SESSIONID']);
    if (isError(sessionId)) return sessionId;
    const msisdn = msisdnOf(fields, ['MSISDN', 'ORIG']);
    if (isError(msisdn)) return msisdn;
    const input = text(fields, ['USSD_PARAMS', 'INPUT'], { allowEmpty: true });
    if (isError(input)) return input;
    const serviceCode = optionalText(fields, 'DEST') ?? optionalText(fields, 'USSDCODE') ?? '';
    // Some gateways put the dialled code first in USSD_PARAMS; the dialogue starts after it.
    const typed =
      serviceCode !== '' && (input === serviceCode || input.startsWith(`${serviceCode}*`))
        ? input.slice(serviceCode.length).replace(/^\*/, '')
        : input;
    return {
      aggregator: NAME,
      sessionId,
      msisdn,
      serviceCode,
      text: { kind: 'cumulative', value: typed },
      isNew: typed === '',
      raw: fields,
    };
  },

  formatReply(reply: UssdReply) {
    return {
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      body: `${reply.end ? 'END' : 'CON'} ${reply.text}`,
    };
  },
};
