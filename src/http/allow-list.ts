import { BlockList, isIP } from 'node:net';

/**
 * An IP allow-list of addresses and CIDR ranges, IPv4 and IPv6 (`10.0.0.5`, `196.201.214.0/24`,
 * `2001:db8::/32`). Built once at start; a bad entry is refused with its text, never silently
 * matching nothing.
 */
export class AllowList {
  private readonly list = new BlockList();
  readonly size: number;

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address, bits, extra] = entry.split('/');
      const family = isIP(address);
      const prefix = bits === undefined ? null : Number(bits);
      const maxBits = family === 6 ? 128 : 32;
      if (
        family === 0 ||
        extra !== undefined ||
        (prefix !== null && (!/^\d{1,3}$/.test(bits) || prefix > maxBits))
      )
        throw new Error(`"${entry}" is not an IP address or CIDR range`);
      const type = family === 6 ? 'ipv6' : 'ipv4';
      if (prefix === null) this.list.addAddress(address, type);
      else this.list.addSubnet(address, prefix, type);
    }
    this.size = entries.length;
  }

  /** Whether `ip` (as a socket reports it; `::ffff:1.2.3.4` counts as `1.2.3.4`) is allowed. */
  allows(ip: string | undefined): boolean {
    const address = (ip ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
    const family = isIP(address);
    if (family === 0) return false;
    return this.list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }
}
