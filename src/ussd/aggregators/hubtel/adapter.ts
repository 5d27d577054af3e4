import type { UssdAdapter } from '../../types';
import { bodyOf, callerOf, dialledAfterCode, isError, json, optionalText, text } from '../../wire';

/**
 * Hubtel (Ghana): one JSON hop URL. `Type` Initiation | Response | Release | Timeout (any
 * case); `Message` is the dialled string on Initiation, then the latest input only; `Sequence`
 * numbers the hops (the re-delivery key). Release and Timeout arrive on the same URL and end
 * the dialogue, keeping it resumable. Reply `{SessionId, Type: Response | Release, Message,
 * Label, ClientState, DataType, FieldType}` (Hubtel Programmable Services API reference, response
 * parameters): `ClientState` echoed as received, a number field for a menu.
 */
const NAME = 'hubtel';

/** A screen's first non-blank line, at most {@link LABEL_MAX} characters. */
const LABEL_MAX = 60;
function labelOf(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.trim().slice(0, LABEL_MAX);
}

export const hubtelAdapter: UssdAdapter = {
  name: NAME,

  parseHop(req) {
    const body = bodyOf(req);
    if (isError(body)) return body;
    const caller = callerOf(body, 'SessionId', 'Mobile');
    if (isError(caller)) return caller;
    const type = text(body, 'Type');
    if (isError(type)) return type;
    const kind = type.toLowerCase();
    if (kind === 'release' || kind === 'timeout')
      return { aggregator: NAME, ...caller, status: 'incomplete' };
    if (kind !== 'initiation' && kind !== 'response')
      return { error: 'field Type must be Initiation, Response, Release or Timeout' };
    const message = text(body, 'Message', { allowEmpty: true });
    if (isError(message)) return message;
    const sequence = optionalText(body, 'Sequence');
    const serviceCode = optionalText(body, 'ServiceCode') ?? '';
    // Initiation's Message is the whole dialled string: a shortcut's groups follow the code.
    const dialled = kind === 'initiation' ? dialledAfterCode(message, serviceCode) : undefined;
    return {
      aggregator: NAME,
      ...caller,
      serviceCode,
      text: { kind: 'latest', value: message },
      isNew: kind === 'initiation',
      ...(dialled !== undefined && { dialled }),
      network: optionalText(body, 'Operator'),
      ...(sequence !== undefined && { requestKey: `seq:${sequence}` }),
      raw: { ClientState: optionalText(body, 'ClientState') ?? '' },
    };
  },

  formatReply(reply, hop) {
    return json({
      // SessionId and Label are mandatory in Hubtel's response table ("Error: UUE" otherwise).
      SessionId: hop?.sessionId ?? '',
      Type: reply.end ? 'Release' : 'Response',
      Message: reply.text,
      // The title the Hubtel app and web mall show above the screen: its first line.
      Label: labelOf(reply.text),
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
