import type { UssdAdapter } from '../../types';
import { flaggedHop, json, optionalText } from '../../wire';

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

  parseHop: (req) =>
    flaggedHop(
      req,
      NAME,
      {
        sessionId: 'sessionID',
        msisdn: 'msisdn',
        isNew: 'newSession',
        input: 'userData',
        network: 'network',
      },
      (body, sessionId): Echo => ({
        sessionID: sessionId,
        userID: optionalText(body, 'userID') ?? '',
        msisdn: String(body.msisdn),
      }),
    ),

  formatReply(reply, hop) {
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
