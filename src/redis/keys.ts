/**
 * The part every key starts with: the configured `REDIS_PREFIX` and a colon (`gw` → `gw:`).
 * A prefix holding `{` or `}` would become the hash tag of every key and put the whole
 * gateway in one Cluster slot, so it is refused.
 */
export function keyPrefix(prefix: string): string {
  if (/[{}]/.test(prefix)) throw new Error(`redis key prefix must not contain { or }: ${prefix}`);
  return prefix === '' || prefix.endsWith(':') ? prefix : `${prefix}:`;
}

/**
 * A caller's text (a provider's message id, a recipient) as one part of a key: percent-encoded,
 * so it cannot add `{`, `}` or `:` to the key. `encodeURIComponent` throws on a lone UTF-16
 * surrogate, which any sender can put in a form field; those are written `%uXXXX` instead, a
 * form `encodeURIComponent` never produces, so two distinct texts never share a key.
 */
export function keyPart(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeWithLoneSurrogates(text);
  }
}

function encodeWithLoneSurrogates(text: string): string {
  return text.replace(/[\ud800-\udbff][\udc00-\udfff]|([\ud800-\udfff])|[^]/g, (unit, lone?: string) =>
    lone ? `%u${lone.charCodeAt(0).toString(16).toUpperCase()}` : encodeURIComponent(unit),
  );
}

/** The text `keyPart` encoded (its exact inverse). */
export function fromKeyPart(part: string): string {
  return part
    .split(/(%u[0-9A-F]{4})/)
    .map((piece) =>
      piece.startsWith('%u') ? String.fromCharCode(parseInt(piece.slice(2), 16)) : decodeURIComponent(piece),
    )
    .join('');
}

/**
 * The part of a key Redis Cluster hashes: the text inside the first `{...}` when it is not
 * empty, else the whole key (the hash-tag rule of the Cluster specification).
 */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  if (close === -1 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

/** CRC16-CCITT (XModem), the checksum Redis Cluster uses for key slots. */
function crc16(data: Buffer): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The Redis Cluster slot (0–16383) of a key. */
export function hashSlot(key: string): number {
  return slotOfTag(hashTagOf(key));
}

/** The slot of the part of a key Redis Cluster hashes ({@link hashTagOf}). */
export function slotOfTag(tag: string): number {
  return crc16(Buffer.from(tag, 'utf8')) % 16384;
}
