import type { UssdAdapter } from '../../types';
import { callerOf, fieldsOf, POST_OR_GET, isError, optionalText, plain, text } from '../../wire';

/**
 * Cellulant: `MSISDN`, `sessionID`, `opCode` (`BEG` new session with the dialled string in
 * `INPUT`, `ABO` abort; anything else continues), `INPUT` the latest input, `ABORT` (any value
 * but `0`/`null` ends the session). A GET query (vumi's tests), also accepted as a form/JSON POST.
 * Reply pipe-separated `level|text|null|null|end-or-null|null`, `level` `1` as vumi sends it; an
 * abort is answered with an empty body. Source: praekeltfoundation/vumi
 * `vumi/transports/cellulant/cellulant.py` and `tests/test_cellulant.py`.
 */
const NAME = 'cellulant';

/** `ABORT` other than `0` or `null` ends the session (vumi's CellulantTransport); absent does not. */
function aborts(value: string | undefined): boolean {
  return value !== undefined && value !== '0' && value.toLowerCase() !== 'null';
}

export const cellulantAdapter: UssdAdapter = {
  name: NAME,
  routes: POST_OR_GET,

  parseHop(req) {
    const fields = fieldsOf(req);
    const caller = callerOf(fields, 'sessionID', 'MSISDN');
    if (isError(caller)) return caller;
    const opCode = (optionalText(fields, 'opCode') ?? '').toUpperCase();
    if (opCode === 'ABO' || aborts(optionalText(fields, 'ABORT')))
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

  // A phone's abort is answered with an empty body (vumi's CellulantTransport).
  formatEndAck: () => plain(''),
};
