import type {
  UssdAdapter,
  UssdHop,
  UssdHttpRequest,
  UssdParseError,
  UssdReply,
  UssdSessionEnd,
} from '../types';
import { isError, msisdnOf, optionalText, queryOf, sessionIdOf, text, type Fields } from '../wire';

/**
 * Cellulant: `MSISDN`, `sessionID`, `opCode` (`BEG` new session with the service code in
 * `INPUT`, `ABO` abort; anything else continues), `INPUT` the latest input, `ABORT`. Accepted as
 * a form/JSON POST or a GET query (the transport is unconfirmed). Reply pipe-separated
 * `level|text|null|null|end-or-null|null`; `level` is unconfirmed and sent as `1`.
 */
const NAME = 'cellulant';

function fieldsOf(req: UssdHttpRequest): Fields {
  return req.method === 'GET' || req.body === null || typeof req.body !== 'object'
    ? queryOf(req)
    : (req.body as Fields);
}

export const cellulantAdapter: UssdAdapter = {
  name: NAME,
  routes: [
    { method: 'POST', path: '', kind: 'hop' },
    { method: 'GET', path: '', kind: 'hop' },
  ],

  parseHop(req: UssdHttpRequest): UssdHop | UssdSessionEnd | UssdParseError {
    const fields = fieldsOf(req);
    const sessionId = sessionIdOf(fields, 'sessionID');
    if (isError(sessionId)) return sessionId;
    const msisdn = msisdnOf(fields, 'MSISDN');
    if (isError(msisdn)) return msisdn;
    const opCode = (optionalText(fields, 'opCode') ?? '').toUpperCase();
    if (opCode === 'ABO' || optionalText(fields, 'ABORT') === '1')
      return { aggregator: NAME, sessionId, msisdn, status: 'incomplete' };
    const input = text(fields, 'INPUT', { allowEmpty: true });
    if (isError(input)) return input;
    const isNew = opCode === 'BEG';
    return {
      aggregator: NAME,
      sessionId,
      msisdn,
      serviceCode: isNew ? input : '',
      text: { kind: 'latest', value: input },
      isNew,
      raw: fields,
    };
  },

  formatReply(reply: UssdReply) {
    const screen = reply.text.replace(/\|/g, '/');
    return {
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      body: `1|${screen}|null|null|${reply.end ? 'end' : 'null'}|null`,
    };
  },

  formatEndAck() {
    return { status: 200, contentType: 'text/plain; charset=utf-8', body: '1|OK|null|null|end|null' };
  },
};
