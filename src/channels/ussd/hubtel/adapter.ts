import type {
  UssdAdapter,
  UssdHop,
  UssdHttpRequest,
  UssdParseError,
  UssdReply,
  UssdSessionEnd,
} from '../types';
import { bodyOf, isError, json, msisdnOf, optionalText, sessionIdOf, text } from '../wire';

/**
 * Hubtel (Ghana): one JSON hop URL. `Type` Initiation | Response | Release | Timeout (any
 * case); `Message` is the dialled string on Initiation, then the latest input only; `Sequence`
 * numbers the hops (the re-delivery key). Release and Timeout arrive on the same URL and end
 * the dialogue, keeping it resumable. Reply `{Type: Response | Release, Message, ClientState}`,
 * `ClientState` echoed as received, with `DataType`/`FieldType` so a menu gets a number field.
 */
const NAME = 'hubtel';

export const hubtelAdapter: UssdAdapter = {
  name: NAME,

  parseHop(req: UssdHttpRequest): UssdHop | UssdSessionEnd | UssdParseError {
    const body = bodyOf(req);
    if (isError(body)) return body;
    const sessionId = sessionIdOf(body, 'SessionId');
    if (isError(sessionId)) return sessionId;
    const msisdn = msisdnOf(body, 'Mobile');
    if (isError(msisdn)) return msisdn;
    const type = text(body, 'Type');
    if (isError(type)) return type;
    const kind = type.toLowerCase();
    if (kind === 'release' || kind === 'timeout')
      return { aggregator: NAME, sessionId, msisdn, status: 'incomplete' };
    if (kind !== 'initiation' && kind !== 'response')
      return { error: 'field Type must be Initiation, Response, Release or Timeout' };
    const message = text(body, 'Message', { allowEmpty: true });
    if (isError(message)) return message;
    const sequence = optionalText(body, 'Sequence');
    return {
      aggregator: NAME,
      sessionId,
      msisdn,
      serviceCode: optionalText(body, 'ServiceCode') ?? '',
      text: { kind: 'latest', value: message },
      isNew: kind === 'initiation',
      network: optionalText(body, 'Operator'),
      ...(sequence !== undefined && { requestKey: `seq:${sequence}` }),
      raw: { ClientState: optionalText(body, 'ClientState') ?? '' },
    };
  },

  formatReply(reply: UssdReply, hop?: UssdHop) {
    return json({
      Type: reply.end ? 'Release' : 'Response',
      Message: reply.text,
      ClientState: (hop?.raw as { ClientState?: string } | undefined)?.ClientState ?? '',
      // The phone shows an input field while the dialogue continues: a number field for a menu.
      DataType: reply.end ? 'display' : 'input',
      FieldType: reply.choice ? 'number' : 'text',
    });
  },

  formatEndAck() {
    return json({ Type: 'Release', Message: '', ClientState: '' });
  },
};
