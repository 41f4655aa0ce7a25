/**
 * Where webhooks may send (src/records/webhooks/webhook-address.ts): public addresses only,
 * an IPv6 address carrying an IPv4 one judged by that one; URLs read without DNS; and the
 * sockets' lookup, which judges what a name resolves to (names from /etc/hosts: no DNS here).
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, it } from 'node:test';
import {
  ADDRESS_REFUSED,
  checkWebhookUrl,
  guardedLookup,
  isPublicAddress,
  isWebhookSecret,
  newWebhookSecret,
} from '../src/records/webhooks/index.js';

const REFUSED = [
  '127.0.0.1',
  '127.255.0.9',
  '10.0.0.1',
  '172.16.5.4',
  '192.168.1.1',
  '100.64.0.1', // carrier-grade NAT
  '100.127.255.254',
  '169.254.169.254', // the clouds' metadata service
  '0.0.0.0',
  '0.1.2.3',
  '255.255.255.255',
  '224.0.0.1',
  '240.0.0.1',
  '192.0.2.1',
  '198.18.0.1',
  '::',
  '::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '::127.0.0.1', // IPv4-compatible, deprecated
  '64:ff9b::a00:1', // NAT64 of 10.0.0.1
  '2002:7f00:1::1', // 6to4 of 127.0.0.1
  '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
  'fc00::1',
  'fdff:ffff::1',
  'fe80::1',
  'febf::1',
  'fec0::1',
  'ff02::1',
  '2001:db8::1',
  'not an address',
  '',
];
const PUBLIC = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.216.34',
  '100.63.255.255',
  '100.128.0.0',
  '172.32.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
  '2002:808:808::1', // 6to4 of 8.8.8.8
];

describe('webhook addresses', () => {
  it('counts only public addresses', () => {
    for (const ip of REFUSED) assert.equal(isPublicAddress(ip), false, ip);
    for (const ip of PUBLIC) assert.equal(isPublicAddress(ip), true, ip);
  });

  it('reads URLs without DNS', () => {
    const refusals: [string, RegExp][] = [
      ['ftp://example.com/', /http or https/],
      ['example.com/hook', /absolute URL/],
      ['https://user:pw@example.com/', /credentials/],
      ['https://example.com/hook#part', /fragment/],
      ['https://example.com/hook#', /fragment/],
      ['http://127.0.0.1:8080/', /^address refused: 127\.0\.0\.1 is loopback$/],
      ['http://2130706433/', /127\.0\.0\.1 is loopback/],
      ['http://0x7f.1/', /127\.0\.0\.1 is loopback/],
      ['http://10.1.2.3/', /is private/],
      ['http://169.254.169.254/latest/', /is link-local/],
      ['http://100.64.1.1/', /carrier-grade NAT/],
      ['http://[::1]:9/', /::1 is loopback/],
      ['http://[::ffff:127.0.0.1]/', /is loopback/],
      ['http://[fd00::1]/', /unique-local/],
      ['http://localhost:3000/', /localhost is loopback/],
      ['http://LOCALHOST./', /localhost is loopback/],
      ['http://api.localhost/', /api\.localhost is loopback/],
    ];
    for (const [url, reason] of refusals) assert.match(checkWebhookUrl(url, false) ?? '', reason, url);
    for (const url of ['https://example.com/hooks?x=1', 'http://8.8.8.8:81/', 'https://[2606:4700::1]/']) {
      assert.equal(checkWebhookUrl(url, false), undefined, url);
    }
    // Private addresses allowed: only the URL's form is checked.
    for (const url of ['http://127.0.0.1:8080/', 'http://localhost/', 'http://[::1]/', 'http://10.0.0.1/']) {
      assert.equal(checkWebhookUrl(url, true), undefined, url);
    }
    assert.match(checkWebhookUrl('http://u@localhost/', true) ?? '', /credentials/);
    assert.match(checkWebhookUrl('file:///etc/passwd', true) ?? '', /http or https/);
  });

  it('refuses the addresses a name resolves to, with or without `all`', async () => {
    const refused = guardedLookup(false);
    for (const all of [true, false]) {
      const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
        refused('localhost', { all }, (failure) => resolve(failure)),
      );
      assert.equal(error?.code, ADDRESS_REFUSED);
      assert.match(error?.message ?? '', /^address refused: (127\.0\.0\.1|::1) is loopback$/);
    }
    const allowed = guardedLookup(true);
    const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      allowed('localhost', { all: true }, (failure, found) =>
        failure ? reject(failure) : resolve(found as LookupAddress[]),
      ),
    );
    assert.ok(addresses.some(({ address }) => address === '127.0.0.1' || address === '::1'));
    const one = await new Promise<[string, number | undefined]>((resolve, reject) =>
      allowed('localhost', { family: 4 }, (failure, address, family) =>
        failure ? reject(failure) : resolve([address as string, family]),
      ),
    );
    assert.deepEqual(one, ['127.0.0.1', 4]);
  });
});

describe('webhook secrets', () => {
  it('makes whsec_ secrets of 32 random bytes, and knows one', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(newWebhookSecret(), secret);
    assert.equal(isWebhookSecret(secret), true);
    const of = (bytes: number) => `whsec_${Buffer.alloc(bytes, 7).toString('base64')}`;
    for (const bytes of [24, 64]) assert.equal(isWebhookSecret(of(bytes)), true, String(bytes));
    for (const text of [of(23), of(65), secret.slice(6), `${secret.slice(0, -1)}`, 'whsec_!!!!', 'whsec_', 42, null]) {
      assert.equal(isWebhookSecret(text), false, String(text));
    }
  });
});
