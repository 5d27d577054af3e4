import type { UssdAdapter } from '../../types';
import {
  afterDialledCode,
  callerOf,
  conEnd,
  fieldsOf,
  isDialString,
  POST_OR_GET,
  isError,
  optionalText,
  text,
} from '../../wire';

/**
 * Safaricom-style CON/END (Safaricom direct, Advanta and the Kenyan gateways built on its
 * template): `SESSION_ID` or `SESSIONID`, `MSISDN` or `ORIG`, `USSD_PARAMS` or `INPUT`
 * (cumulative, `*`-joined, like Africa's Talking: the same prefix derivation), `DEST` or
 * `USSDCODE`; form/JSON POST or GET. Reply `CON …` / `END …` as text/plain.
 *
 * Safaricom direct sends what was dialled after the code on the first hop (`DEST=384`,
 * `USSD_PARAMS=1` for `*384*1#`); Advanta-style gateways send the whole dial string, code and
 * `#` included (`USSDCODE=*384#`, `INPUT=*384*1#`). Either way the text is what follows the code,
 * and on a session's first hop it is a one-dial shortcut.
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
    // Only a dial string carries the code: a typed `384` stays an input.
    const typed = (isDialString(input) ? afterDialledCode(input, serviceCode) : undefined) ?? input;
    return {
      aggregator: NAME,
      ...caller,
      serviceCode,
      text: { kind: 'cumulative', value: typed },
      isNew: typed === '',
      // The first hop's text is what was dialled after the code (a shortcut); the engine reads
      // it only on a session's first hop.
      ...(typed !== '' && { dialled: typed }),
      raw: fields,
    };
  },

  formatReply: conEnd,
};
