import type { UssdAdapter } from '../../types';
import { flaggedHop, json, optionalText } from '../../wire';

/**
 * Nalo Solutions (Ghana, Nigeria): JSON `{USERID, MSISDN, USERDATA, MSGTYPE, NETWORK,
 * SESSIONID}`; `MSGTYPE: true` marks the first dial (USERDATA = the dialled code), then the
 * latest input only. Reply `{USERID, MSISDN, MSG, MSGTYPE}`: `true` continues, `false` ends.
 */
const NAME = 'nalo';

interface Echo {
  USERID: string;
  MSISDN: string;
}

export const naloAdapter: UssdAdapter = {
  name: NAME,
  // "MSG – Response message (STRING, max 120 chars)": Nalo's USSD API documentation, table 1.0.
  screenLimit: 120,

  parseHop: (req) =>
    flaggedHop(
      req,
      NAME,
      { sessionId: 'SESSIONID', msisdn: 'MSISDN', isNew: 'MSGTYPE', input: 'USERDATA', network: 'NETWORK' },
      (body): Echo => ({ USERID: optionalText(body, 'USERID') ?? '', MSISDN: String(body.MSISDN) }),
    ),

  formatReply(reply, hop) {
    const echo = (hop?.raw ?? {}) as Partial<Echo>;
    return json({
      USERID: echo.USERID ?? '',
      MSISDN: echo.MSISDN ?? '',
      MSG: reply.text,
      MSGTYPE: !reply.end,
    });
  },
};
