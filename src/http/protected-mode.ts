/**
 * Protected mode: with no API keys, restock serves only addresses no other machine can
 * reach, unless the operator says something in front of it controls access.
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether `host` is an address only this machine can reach: 127.0.0.0/8, ::1 or `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const address = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (address === 'localhost') return true;
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Protected mode: the one line to refuse starting with, when the service would listen on
 * an address other machines can reach with no API keys and without the operator's
 * explicit opt-out; undefined when it may start.
 */
export function protectedModeRefusal(settings: { host: string; keyCount: number; insecureNoAuth: boolean }) {
  if (settings.keyCount > 0 || settings.insecureNoAuth || isLoopbackHost(settings.host)) return undefined;
  return (
    `refusing to listen on ${settings.host} with no API keys, where anyone who can reach it could change every ` +
    'record: set API_KEYS or API_KEYS_FILE, listen on 127.0.0.1, or start with --insecure-no-auth ' +
    '(INSECURE_NO_AUTH=true) if something in front of restock controls access'
  );
}
