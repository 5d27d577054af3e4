import { wireTable } from '../../../http/wire-table';
import type { UssdAdapter, UssdHttpRequest, UssdParseError, UssdSessionEnd } from '../../types';
import { bodyOf, isError, json, msisdnOf, optionalText, SESSION_ID, text } from '../../wire';

/**
 * Infobip (older third-party gateway API): `POST /ussd/infobip/session/{id}/start` and
 * `/response` with JSON `{msisdn, text, shortCode?, imsi?, language?, ussdGwId?}` (latest input);
 * `PUT` or `POST .../end` with `{reason, exitCode}` (no number: the session id identifies it);
 * `GET .../status` → `{sessionActive, responseExitCode, responseMessage}`. Reply
 * `{ussdMenu, shouldClose, responseExitCode: 200, responseMessage: ""}`; a refused request
 * `{responseExitCode: 400, responseMessage}` with HTTP 200 (praekeltfoundation/vumi
 * `vumi/transports/infobip/infobip.py`, `send_error`, the transport that ran it in production).
 */
const NAME = 'infobip';

/**
 * `exitCode` of an end ("all the exit codes can be found in Table 1" of Infobip's spec, which is
 * not public): `0` is the ordinary end (`{"reason": "ok", "exitCode": 0}` in vumi's tests), `200`
 * the success code of the rest of the API. Any other counts as failed; both stay resumable.
 */
const END_STATUS = wireTable<UssdSessionEnd['status']>({ 0: 'incomplete', 200: 'incomplete' });

function sessionOf(req: UssdHttpRequest): string | UssdParseError {
  const id = req.params?.id ?? '';
  return SESSION_ID.test(id) ? id : { error: 'the session id in the path has unexpected characters' };
}

export const infobipAdapter: UssdAdapter = {
  name: NAME,
  routes: [
    { method: 'POST', path: '/session/:id/start', kind: 'hop' },
    { method: 'POST', path: '/session/:id/response', kind: 'hop' },
    { method: 'PUT', path: '/session/:id/end', kind: 'end' },
    { method: 'POST', path: '/session/:id/end', kind: 'end' },
    { method: 'GET', path: '/session/:id/status', kind: 'status' },
  ],

  parseHop(req) {
    const sessionId = sessionOf(req);
    if (isError(sessionId)) return sessionId;
    const body = bodyOf(req);
    if (isError(body)) return body;
    const msisdn = msisdnOf(body, 'msisdn');
    if (isError(msisdn)) return msisdn;
    const input = text(body, 'text', { allowEmpty: true });
    if (isError(input)) return input;
    const isNew = req.route?.endsWith('/start') === true;
    return {
      aggregator: NAME,
      sessionId,
      msisdn,
      serviceCode: optionalText(body, 'shortCode') ?? '',
      text: { kind: 'latest', value: input },
      isNew,
      raw: body,
    };
  },

  formatReply(reply) {
    return json({ ussdMenu: reply.text, shouldClose: reply.end, responseExitCode: 200, responseMessage: '' });
  },

  parseEnd(req) {
    const sessionId = sessionOf(req);
    if (isError(sessionId)) return sessionId;
    const body =
      req.body !== null && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
    const exitCode = optionalText(body, 'exitCode') ?? '0';
    return { aggregator: NAME, sessionId, msisdn: null, status: END_STATUS.get(exitCode) ?? 'failed' };
  },

  formatEndAck() {
    return json({ responseExitCode: 200, responseMessage: '' });
  },

  parseStatus(req) {
    const sessionId = sessionOf(req);
    return isError(sessionId) ? sessionId : { sessionId };
  },

  formatStatus(active) {
    return json({ sessionActive: active, responseExitCode: 200, responseMessage: '' });
  },

  // Refused as the gateway's own transports are answered: HTTP 200, the code in the body.
  formatError(status, message) {
    return json({ responseExitCode: status, responseMessage: message });
  },
};
