import type { UssdAdapter } from '../types';
import { callerOf, fieldsOf, POST_OR_GET, isError, optionalText, plain, text } from '../wire';

/**
 * Cellulant: `MSISDN`, `sessionID`, `opCode` (`BEG` new session with the service code in
 * `INPUT`, `ABO` abort; anything else continues), `INPUT` the latest input, `ABORT`. Accepted as
 * a form/JSON POST or a GET query (the transport is unconfirmed). Reply pipe-separated
 * `level|text|null|null|end-or-null|null`; `level` is unconfirmed and sent as `1`.
 */
const NAME = 'cellulant';

export const cellulantAdapter: UssdAdapter = {
  name: NAME,
  routes: POST_OR_GET,

  parseHop(req) {
    const fields = fieldsOf(req);
    const caller = callerOf(fields, 'sessionID', 'MSISDN');
    if (isError(caller)) return caller;
    const opCode = (optionalText(fields, 'opCode') ?? '').toUpperCase();
    if (opCode === 'ABO' || optionalText(fields, 'ABORT') === '1')
      return { aggregator: NAME, ...caller, status: 'incomplete' };
    const input = text(fields, 'INPUT', { allowEmpty: true });
    if (isError(input)) return input;
    const isNew = opCode === 'BEG';
    return {
      aggregator: NAME,
      ...caller,
      serviceCode: isNew ? input : '',
      text: { kind: 'latest', value: input },
      isNew,
      raw: fields,
    };
  },

  formatReply(reply) {
    const screen = reply.text.replace(/\|/g, '/');
    return plain(`1|${screen}|null|null|${reply.end ? 'end' : 'null'}|null`);
  },

  formatEndAck: () => plain('1|OK|null|null|end|null'),
};
