import type { UssdAdapter } from '../types';
import { callerOf, conEnd, fieldsOf, POST_OR_GET, isError, optionalText, text } from '../wire';

/**
 * Safaricom-style CON/END (Safaricom direct, Advanta and other Kenyan gateways): `SESSION_ID` or
 * `SESSIONID`, `MSISDN` or `ORIG`, `USSD_PARAMS` or `INPUT` (cumulative, `*`-joined, like
 * Africa's Talking: the same prefix derivation), `DEST` or `USSDCODE`; form/JSON POST or GET.
 * Reply `CON …` / `END …` as text/plain.
 */
const NAME = 'safaricom';

export const safaricomAdapter: UssdAdapter = {
  name: NAME,
  routes: POST_OR_GET,

  parseHop(req) {
    const fields = fieldsOf(req);
    const caller = callerOf(fields, ['SESSION_ID', 'SESSIONID'], ['MSISDN', 'ORIG']);
    if (isError(caller)) return caller;
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
      ...caller,
      serviceCode,
      text: { kind: 'cumulative', value: typed },
      isNew: typed === '',
      raw: fields,
    };
  },

  formatReply: conEnd,
};
