// Which addresses collection may connect to. The ranges are ipaddr.js's (a maintained table of the IANA special-purpose
// registries), not a list kept here: only what it calls 'unicast' is public. IPv6 forms that carry an IPv4 address —
// IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), NAT64
// (64:ff9b::a.b.c.d), 6to4 (2002:aabb:ccdd::) and Teredo — reach that IPv4 address (through a local translator or
// relay), so they are judged by it; ipaddr.js files some of them under their own names and the IPv4-compatible form
// under 'unicast', which would let ::127.0.0.1 through.
import ipaddr from 'ipaddr.js';

/** The ranges a development or test setup may reach on top of the public ones (SCRAPING_ALLOW_PRIVATE_HOSTS). */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'linkLocal', 'carrierGradeNat']);

const NAT64 = ipaddr.IPv6.parse('64:ff9b::');
const NAT64_LOCAL = ipaddr.IPv6.parse('64:ff9b:1::');
const IPV4_COMPATIBLE = ipaddr.IPv6.parse('::');

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The form and the IPv4 addresses an IPv6 address delivers to, when it is one of the forms that embed one. */
function embeddedIpv4(address: ipaddr.IPv6): { form: string; ipv4: ipaddr.IPv4[] } | undefined {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  const range = address.range() as string;
  if (range === 'ipv4Mapped') return { form: 'IPv4-mapped', ipv4: [ipv4Of(p[6], p[7])] };
  if (range === 'rfc6145') return { form: 'IPv4-translated', ipv4: [ipv4Of(p[6], p[7])] };
  // ::/96 other than :: and ::1 (which ipaddr.js names): the deprecated IPv4-compatible form.
  if (range === 'unicast' && address.match(IPV4_COMPATIBLE, 96)) {
    return { form: 'IPv4-compatible', ipv4: [ipv4Of(p[6], p[7])] };
  }
  if (address.match(NAT64, 96)) return { form: 'NAT64', ipv4: [ipv4Of(p[6], p[7])] };
  if (range === '6to4') return { form: '6to4', ipv4: [ipv4Of(p[1], p[2])] };
  // Teredo: the relay (server) in plain, the client obfuscated by inverting its bits.
  if (range === 'teredo') {
    return { form: 'Teredo', ipv4: [ipv4Of(p[2], p[3]), ipv4Of(~p[6] & 0xffff, ~p[7] & 0xffff)] };
  }
  return undefined;
}

/**
 * Why collection may not connect to this address (its range's name, e.g. "loopback" or "loopback (127.0.0.1 in
 * 6to4)"), or undefined when it may. Anything that does not parse as an address is refused.
 */
export function addressProblem(address: string, allowPrivate: boolean): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  const allowed = (range: string) => range === 'unicast' || (allowPrivate && PRIVATE_RANGES.has(range));
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // The local-use NAT64 prefix (RFC 8215) translates into a private network by definition.
    if (v6.match(NAT64_LOCAL, 48)) return allowPrivate ? undefined : 'local-use NAT64';
    const embedded = embeddedIpv4(v6);
    if (embedded) {
      for (const v4 of embedded.ipv4) {
        const range = v4.range();
        if (!allowed(range)) return `${range} (${v4.toString()} in ${embedded.form})`;
      }
      return undefined;
    }
  }
  const range = parsed.range();
  return allowed(range) ? undefined : range;
}
