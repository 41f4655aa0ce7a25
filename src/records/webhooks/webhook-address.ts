/**
 * Where a webhook may send: only to addresses on the public internet, unless the operator
 * allows private ones (WEBHOOKS_ALLOW_PRIVATE). Otherwise a write key could make restock
 * POST to its own loopback, its cloud's metadata service or the private network it sits in.
 *
 * Two checks: {@link checkWebhookUrl} reads the URL without DNS (a literal address, a
 * `localhost` name), and {@link guardedLookup} judges every address a hostname resolves to,
 * as the socket resolves it: a name that resolved to a public address when the webhook was
 * saved and resolves to 10.0.0.1 now (DNS rebinding) is refused at the connection itself.
 */

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The code of the error {@link guardedLookup} fails with. */
export const ADDRESS_REFUSED = 'ERR_WEBHOOK_ADDRESS_REFUSED';

/** ipaddr.js' names of ranges, in words for the error line; other names are written as they are. */
const RANGE_WORDS: Record<string, string> = {
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  carrierGradeNat: 'carrier-grade NAT',
  deprecatedSiteLocal: 'site-local',
  ipv4Compatible: 'IPv4-compatible',
  invalid: 'not an IP address',
};

/**
 * The range an address is in: `unicast` for a public one. An IPv6 address that carries an
 * IPv4 one (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::`) is
 * judged by that IPv4 address, which is where its packets end up; the deprecated
 * IPv4-compatible `::a.b.c.d` is refused whole (ipaddr.js counts it unicast).
 */
export function addressRange(ip: string): string {
  if (!ipaddr.isValid(ip)) return 'invalid';
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.range();
  const v6 = address as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.range();
  const range = v6.range();
  if (range === 'unicast' && v6.parts.slice(0, 6).every((part) => part === 0)) return 'ipv4Compatible';
  return range;
}

function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = v6.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (v6.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) return v4(p[6] as number, p[7] as number);
  if (v6.range() === '6to4') return v4(p[1] as number, p[2] as number);
  return undefined;
}

/** Whether `ip` is an address on the public internet (ipaddr.js' `unicast`, and nothing it calls special). */
export function isPublicAddress(ip: string): boolean {
  return addressRange(ip) === 'unicast';
}

/** The one line a refused address gets: `address refused: 10.0.0.1 is private`. */
export function refusedAddress(ip: string): string {
  const range = addressRange(ip);
  return `address refused: ${ip} is ${RANGE_WORDS[range] ?? range}`;
}

/**
 * Why a webhook's URL is refused, without resolving it; undefined when it is taken. A
 * fragment (`#…`) is refused rather than dropped: it is never sent, so a URL holding one is
 * likely not the one meant, and what is stored is what is called.
 */
export function checkWebhookUrl(text: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '') return 'must not hold credentials (user:password@)';
  if (url.hash !== '' || text.includes('#')) return 'must not hold a fragment (#…): it is never sent';
  if (allowPrivate) return undefined;
  // The URL parser writes IPv4 in dots (2130706433 and 0x7f.1 become 127.0.0.1), IPv6 in brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (isIP(host) !== 0) return isPublicAddress(host) ? undefined : refusedAddress(host);
  if (host === 'localhost' || host.endsWith('.localhost')) return `address refused: ${host} is loopback`;
  return undefined;
}

type LookupCallback = Parameters<LookupFunction>[2];

/**
 * A `lookup` for sockets (the shape of `dns.lookup`, with or without `all`) that resolves
 * a name and fails, code {@link ADDRESS_REFUSED}, when any address it resolves to is not
 * public: a name that mixes a public address with a private one is not trusted with either.
 * With `allowPrivate`, plain `dns.lookup`.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  if (allowPrivate) return dnsLookup as LookupFunction;
  return (hostname, options, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', undefined);
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', undefined);
      }
      const refused = addresses.find(({ address }) => !isPublicAddress(address));
      if (refused) {
        const failure = Object.assign(new Error(refusedAddress(refused.address)), { code: ADDRESS_REFUSED });
        return callback(failure, '', undefined);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}
