import type { UssdAdapter, UssdHop, UssdHttpRequest, UssdParseError, UssdReply } from '../types';
import { bodyOf, booleanOf, isError, json, msisdnOf, optionalText, sessionIdOf, text } from '../wire';

/**
 * Arkesel (Ghana): JSON `{sessionID, userID, newSession, msisdn, userData, network}`, `userData`
 * the latest input only (what the first hop carries is unconfirmed: treated as the dialled
 * code and not read as input). Reply `{sessionID, userID, msisdn, message, continueSession}`.
 */
const NAME = 'arkesel';

interface Echo {
  sessionID: string;
  userID: string;
  msisdn: string;
}

export const arkeselAdapter: UssdAdapter = {
  name: NAME,

  parseHop(req: UssdHttpRequest): UssdHop | UssdParseError {
    const body = bodyOf(req);
    if (isError(body)) return body;
    const sessionId = sessionIdOf(body, 'sessionID');
    if (isError(sessionId)) return sessionId;
    const msisdn = msisdnOf(body, 'msisdn');
    if (isError(msisdn)) return msisdn;
    const isNew = booleanOf(body, 'newSession');
    if (isError(isNew)) return isNew;
    const userData = text(body, 'userData', { allowEmpty: true });
    if (isError(userData)) return userData;
    const echo: Echo = {
      sessionID: sessionId,
      userID: optionalText(body, 'userID') ?? '',
      msisdn: String(body.msisdn),
    };
    return {
      aggregator: NAME,
      sessionId,
      msisdn,
      serviceCode: isNew ? userData : '',
      text: { kind: 'latest', value: userData },
      isNew,
      network: optionalText(body, 'network'),
      raw: echo,
    };
  },

  formatReply(reply: UssdReply, hop?: UssdHop) {
    const echo = (hop?.raw ?? {}) as Partial<Echo>;
    return json({
      sessionID: echo.sessionID ?? '',
      userID: echo.userID ?? '',
      msisdn: echo.msisdn ?? '',
      message: reply.text,
      continueSession: !reply.end,
    });
  },
};
