import { describe, expect, it } from 'vitest';
import { EMBEDDED_IPV4_FORMS, internalAddressReason, literalHostReason } from '../../../dispatcher/address-guard.js';

// Every address form a webhook URL may name, each with one address the guard must refuse and
// one it must let through. IPv6 forms that carry an IPv4 address are judged by that address.
const FORMS: { form: string; refused: string; allowed: string }[] = [
  { form: 'IPv4', refused: '127.0.0.1', allowed: '8.8.8.8' },
  { form: 'IPv4 private', refused: '10.1.2.3', allowed: '93.184.216.34' },
  { form: 'IPv4 link-local (cloud metadata)', refused: '169.254.169.254', allowed: '172.32.0.1' },
  { form: 'IPv6', refused: '::1', allowed: '2606:4700:4700::1111' },
  { form: 'IPv6 unspecified', refused: '::', allowed: '2606:4700::' },
  { form: 'IPv6 multicast', refused: 'ff02::1', allowed: 'fe00::1' },
  { form: 'IPv6 unique local', refused: 'fd12:3456::1', allowed: 'fe00::2' },
  { form: 'IPv6 link-local with a zone', refused: 'fe80::1%eth0', allowed: '2a00:1450:4001::1' },
  { form: 'IPv4-mapped (::ffff:0:0/96)', refused: '::ffff:7f00:1', allowed: '::ffff:808:808' },
  { form: 'IPv4-mapped, dotted', refused: '::ffff:169.254.169.254', allowed: '::ffff:8.8.8.8' },
  { form: 'IPv4-translated (::ffff:0:0:0/96)', refused: '::ffff:0:7f00:1', allowed: '::ffff:0:808:808' },
  { form: 'IPv4-translated, dotted', refused: '::ffff:0:10.0.0.1', allowed: '::ffff:0:8.8.4.4' },
  { form: 'IPv4-compatible (::/96)', refused: '::7f00:1', allowed: '::808:808' },
  { form: 'IPv4-compatible, dotted', refused: '::192.168.1.1', allowed: '::1.1.1.1' },
  { form: 'NAT64 (64:ff9b::/96)', refused: '64:ff9b::a00:1', allowed: '64:ff9b::808:808' },
  { form: 'local-use NAT64 (64:ff9b:1::/48)', refused: '64:ff9b:1::7f00:1', allowed: '64:ff9b:1::808:808' },
  { form: 'local-use NAT64 with the operator bits set', refused: '64:ff9b:1:abcd:1:2:a9fe:a9fe', allowed: '64:ff9b:1:abcd:1:2:808:808' },
  { form: '6to4 (2002::/16)', refused: '2002:c0a8:101::1', allowed: '2002:808:808::1' },
  // Teredo: server 65.54.227.120, then flags, port, and the client address with its bits inverted
  // (~127.0.0.1 = 80ff:fffe, ~8.8.8.8 = f7f7:f7f7).
  { form: 'Teredo (2001::/32)', refused: '2001:0:4136:e378:8000:63bf:80ff:fffe', allowed: '2001:0:4136:e378:8000:63bf:f7f7:f7f7' },
];

describe('private-network guard', () => {
  it.each(FORMS)('$form: refuses $refused, allows $allowed', ({ refused, allowed }) => {
    expect(internalAddressReason(refused)).not.toBeNull();
    expect(internalAddressReason(allowed)).toBeNull();
  });

  it('names the IPv4 address found inside an IPv6 one', () => {
    expect(internalAddressReason('::ffff:0:7f00:1')).toBe('internal IPv4 address 127.0.0.1 inside IPv4-translated');
    expect(internalAddressReason('2001:0:4136:e378:8000:63bf:80ff:fffe')).toBe('internal IPv4 address 127.0.0.1 inside Teredo');
  });

  it('has a row above for every embedded IPv4 form it knows', () => {
    for (const { form } of EMBEDDED_IPV4_FORMS)
      expect(
        FORMS.some((f) => f.form.startsWith(form)),
        form,
      ).toBe(true);
  });

  it('judges the local-use NAT64 prefix under every layout an operator may choose inside it', () => {
    // RFC 6052 /64: 127.0.0.1 and 8.8.8.8 after the zero "u" octet, zero bytes after them. Read as
    // a /96 these are 1.0.0.0 and 8.0.0.0: only the /64 reading finds the loopback address.
    expect(internalAddressReason('64:ff9b:1:0:7f:0:100:0')).toBe('internal IPv4 address 127.0.0.1 inside local-use NAT64');
    expect(internalAddressReason('64:ff9b:1:0:8:808:800:0')).toBeNull();
    // /56 and /48 layouts end in four zero bytes: a /96 gateway would send them to 0.0.0.0 (this
    // host), so they are refused whatever they carry.
    for (const a of ['64:ff9b:1:7f:0:1::', '64:ff9b:1:8:8:808::', '64:ff9b:1:7f00:0:100::', '64:ff9b:1:808:8:800::']) {
      expect(internalAddressReason(a), a).not.toBeNull();
    }
  });

  it('refuses the rest of the internal IPv4 and IPv6 ranges', () => {
    for (const a of ['127.255.0.9', '172.16.5.4', '172.31.255.255', '192.168.1.1', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', 'fc00::1']) {
      expect(internalAddressReason(a), a).not.toBeNull();
    }
  });

  it('checks IP-literal URL hosts (which node:net connects to without a lookup), as the URL parser normalizes them', () => {
    for (const u of [
      'http://[::ffff:127.0.0.1]/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://[::1]:8080/',
      'http://[::ffff:0:7f00:1]/',
      'http://[64:ff9b:1::a00:1]/',
    ]) {
      expect(literalHostReason(new URL(u).hostname), u).not.toBeNull();
    }
    expect(literalHostReason('example.com')).toBeNull();
    expect(literalHostReason('[2606:4700:4700::1111]')).toBeNull();
  });
});
