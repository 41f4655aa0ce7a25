/**
 * For the token tests: JWTs made by hand (the malformed and forged ones a service must
 * refuse), the store's own signing key, and an outside identity provider publishing its
 * keys over loopback.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, exportSPKI, generateKeyPair, importJWK, type JWTPayload, SignJWT } from 'jose';
import type { AccountTables } from '../../src/store/account-model.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A JWT with `alg: none` and no signature. */
export function unsignedToken(header: Record<string, unknown>, payload: JWTPayload): string {
  return `${b64({ ...header, alg: 'none' })}.${b64(payload)}.`;
}

/** `token` with its payload replaced, its header and signature kept. */
export function withPayload(token: string, change: (payload: JWTPayload) => JWTPayload): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as JWTPayload;
  return `${header}.${b64(change(claims))}.${signature}`;
}

/** The claims of a token, unverified. */
export function claimsOf(token: string): JWTPayload {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as JWTPayload;
}

/** The protected header of a token, unverified. */
export function headerOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as Record<string, unknown>;
}

/** The claims of a valid own token of users' account 7 at `now` (milliseconds), `extra` over them. */
export function ownClaims(now: number, extra: JWTPayload = {}): JWTPayload {
  const iat = Math.floor(now / 1000);
  return { sub: '7', collection: 'users', role: 'admin', iss: 'restock', iat, exp: iat + 900, ...extra };
}

/** The newest signing key of the store: its kid, private key, and public key as JWK text and PEM. */
export async function storeKey(accounts: AccountTables) {
  const [row] = await accounts.listKeys();
  if (!row) throw new Error('no signing key in the store');
  const publicKey = (await importJWK(JSON.parse(row.publicJwk), 'ES256', { extractable: true })) as CryptoKey;
  return {
    kid: row.kid,
    privateKey: (await importJWK(JSON.parse(row.privateJwk), 'ES256')) as CryptoKey,
    publicJwk: row.publicJwk,
    publicPem: await exportSPKI(publicKey),
  };
}

/** Signs `payload` with `key` under the protected header `header` (its `alg` included). */
export function sign(
  payload: JWTPayload,
  header: { alg: string; kid?: string },
  key: CryptoKey | Uint8Array,
): Promise<string> {
  return new SignJWT(payload).setProtectedHeader(header).sign(key);
}

/** An outside identity provider: an RS256 key whose JWKS is served on 127.0.0.1. */
export async function outsideProvider() {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' };
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    issuer: 'https://idp.example',
    audience: 'restock-api',
    jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    privateKey,
    publicJwk: JSON.stringify(publicJwk),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A PEM public key of type `alg` and its private key, for a provider configured by PEM. */
export async function pemProvider(alg: 'ES384' | 'RS256') {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { issuer: 'https://pem.example', audience: 'restock-api', privateKey, publicKey: await exportSPKI(publicKey) };
}
