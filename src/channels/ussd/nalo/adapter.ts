import type { UssdAdapter, UssdHop, UssdHttpRequest, UssdParseError, UssdReply } from '../types';
import { bodyOf, booleanOf, isError, json, msisdnOf, optionalText, sessionIdOf, text } from '../wire';

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

  parseHop(req: UssdHttpRequest): UssdHop | UssdParseError {
    const body = bodyOf(req);
    if (isError(body)) return body;
    const sessionId = sessionIdOf(body, 'SESSIONID');
    if (isError(sessionId)) return sessionId;
    const msisdn = msisdnOf(body, 'MSISDN');
    if (isError(msisdn)) return msisdn;
    const isNew = booleanOf(body, 'MSGTYPE');
    if (isError(isNew)) return isNew;
    const userData = text(body, 'USERDATA', { allowEmpty: true });
    if (isError(userData)) return userData;
    const echo: Echo = { USERID: optionalText(body, 'USERID') ?? '', MSISDN: String(body.MSISDN) };
    return {
      aggregator: NAME,
      sessionId,
      msisdn,
      serviceCode: isNew ? userData : '',
      text: { kind: 'latest', value: userData },
      isNew,
      network: optionalText(body, 'NETWORK'),
      raw: echo,
    };
  },

  formatReply(reply: UssdReply, hop?: UssdHop) {
    const echo = (hop?.raw ?? {}) as Partial<Echo>;
    return json({
      USERID: echo.USERID ?? '',
      MSISDN: echo.MSISDN ?? '',
      MSG: reply.text,
      MSGTYPE: !reply.end,
    });
  },
};
