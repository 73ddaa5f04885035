import dns from 'node:dns';
import net from 'node:net';

// Private-network guard (DECISIONS.md "Events"): a webhook URL must not reach loopback, private,
// link-local or otherwise internal addresses. The check runs on the addresses the connection
// will actually use (a `lookup` for the request, so a name that resolves differently between a
// check and the connect cannot slip through), and on IP literals before any request.

const v4 = new net.BlockList();
for (const [addr, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  v4.addSubnet(addr, prefix, 'ipv4');
}

const v6 = new net.BlockList();
for (const [addr, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  v6.addSubnet(addr, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address (as net.isIPv6 accepts it), or null. */
function ipv6Bytes(addr: string): number[] | null {
  let s = addr.split('%')[0]!;
  let tail: number[] = [];
  const dotted = s.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    tail = dotted[2]!.split('.').map(Number);
    s = dotted[1]! + '0:0'; // placeholder groups, replaced below
  }
  const halves = s.split('::');
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length > 1 && halves[1] ? halves[1].split(':') : [];
  const fill = 8 - head.length - rest.length;
  const groups = [...head, ...Array<string>(halves.length > 1 ? fill : 0).fill('0'), ...rest].map((g) => parseInt(g, 16));
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g))) return null;
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  if (dotted) bytes.splice(12, 4, ...tail);
  return bytes;
}

/**
 * Where RFC 6052 puts the IPv4 address for each prefix length that fits inside the local-use
 * prefix 64:ff9b:1::/48 (an operator picks one): the byte positions of its four bytes. Byte 8 (the
 * "u" octet) and every byte after the address must then be zero; a /96 has neither rule.
 */
const NAT64_LAYOUTS: readonly { at: readonly number[]; zero: readonly number[] }[] = [
  { at: [12, 13, 14, 15], zero: [] }, // /96
  { at: [9, 10, 11, 12], zero: [8, 13, 14, 15] }, // /64
  { at: [7, 9, 10, 11], zero: [8, 12, 13, 14, 15] }, // /56
  { at: [6, 7, 9, 10], zero: [8, 11, 12, 13, 14, 15] }, // /48
];

/**
 * IPv6 forms that carry an IPv4 address: what such an address reaches (through the host's own
 * stack, a translator or a tunnel relay) is the IPv4 address inside it, so that is what is judged.
 * Each form: the leading bytes that identify it, and the IPv4 addresses it may carry (more than
 * one where the layout is the operator's choice: refused when any of them is internal).
 */
export const EMBEDDED_IPV4_FORMS: readonly { form: string; prefix: readonly number[]; ipv4: (b: readonly number[]) => number[][] }[] = [
  // ::ffff:a.b.c.d (::ffff:0:0/96)
  { form: 'IPv4-mapped', prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], ipv4: (b) => [b.slice(12)] },
  // ::ffff:0:a.b.c.d (::ffff:0:0:0/96, stateless translation)
  { form: 'IPv4-translated', prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], ipv4: (b) => [b.slice(12)] },
  // ::a.b.c.d (::/96, deprecated; :: and ::1 are refused before this)
  { form: 'IPv4-compatible', prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], ipv4: (b) => [b.slice(12)] },
  // 64:ff9b::/96, the well-known NAT64 prefix (only ever used as a /96)
  { form: 'NAT64', prefix: [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], ipv4: (b) => [b.slice(12)] },
  // 64:ff9b:1::/48, local-use NAT64: every layout the address is valid under
  {
    form: 'local-use NAT64',
    prefix: [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01],
    ipv4: (b) => NAT64_LAYOUTS.filter((l) => l.zero.every((i) => b[i] === 0)).map((l) => l.at.map((i) => b[i]!)),
  },
  // 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
  { form: '6to4', prefix: [0x20, 0x02], ipv4: (b) => [b.slice(2, 6)] },
  // 2001:0:server:flags:port:client, the client's address with every bit inverted
  { form: 'Teredo', prefix: [0x20, 0x01, 0x00, 0x00], ipv4: (b) => [b.slice(12).map((x) => ~x & 0xff)] },
];

/** Why an address is refused, or null when it is a public address. */
export function internalAddressReason(address: string): string | null {
  const family = net.isIP(address);
  if (family === 4) return v4.check(address, 'ipv4') ? 'internal IPv4 address' : null;
  if (family !== 6) return 'not an IP address';
  if (v6.check(address, 'ipv6')) return 'internal IPv6 address';
  const b = ipv6Bytes(address);
  if (!b) return 'unparsable IPv6 address';
  const embedded = EMBEDDED_IPV4_FORMS.find((f) => f.prefix.every((x, i) => b[i] === x));
  if (!embedded) return null;
  const internal = embedded
    .ipv4(b)
    .map((x) => x.join('.'))
    .find((a) => v4.check(a, 'ipv4'));
  return internal ? `internal IPv4 address ${internal} inside ${embedded.form}` : null;
}

export class BlockedAddressError extends Error {
  constructor(host: string, address: string, reason: string) {
    super(`refused ${host} (${address}): ${reason}; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http(s) requests that resolves as usual and refuses the connection when any
 * resolved address is internal (all of them: the socket may try each in turn).
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', undefined);
    for (const a of addresses) {
      const reason = internalAddressReason(a.address);
      if (reason) return callback(new BlockedAddressError(hostname, a.address, reason), '', undefined);
    }
    if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', undefined);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/** For IP-literal hosts, which node:net connects to without calling `lookup`. */
export function literalHostReason(hostname: string): string | null {
  const h = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return net.isIP(h) ? internalAddressReason(h) : null;
}
