/**
 * The example shop without its accounts and rules: for the suites that test what the shop's
 * collections do (references, bulk creates, schemas, the console's forms) rather than who
 * may do it, so that every request need not carry a credential. test/record-rules.test.ts
 * and test/accounts.test.ts test the shop as it is.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SHOP = new URL('../../schemas/shop/', import.meta.url);
const ACCESS_KEYWORDS = ['x-auth', 'x-rules', 'x-owner'];

function openShopFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-open-shop-'));
  for (const name of readdirSync(SHOP)) {
    const schema = JSON.parse(readFileSync(new URL(name, SHOP), 'utf8')) as Record<string, unknown>;
    for (const keyword of ACCESS_KEYWORDS) delete schema[keyword];
    const properties = schema.properties as Record<string, unknown> | undefined;
    if (properties) delete properties.password;
    writeFileSync(join(dir, name), JSON.stringify(schema, null, 2));
  }
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A folder of the shop's schemas without `x-auth`, `x-rules`, `x-owner` or a password, removed on exit. */
export const OPEN_SHOP_SCHEMAS = openShopFolder();

/**
 * A copy of the shop, accounts and rules kept, whose products and users take any field, as
 * the example's did before its schemas were closed: for the suites that put a field of any
 * size or depth in one (`description`, `nested`, `blob`). Removed on exit.
 */
export function shopWithOpenSchemas(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restock-shop-open-'));
  for (const name of readdirSync(SHOP)) {
    const schema = JSON.parse(readFileSync(new URL(name, SHOP), 'utf8')) as Record<string, unknown>;
    if (!name.startsWith('orders.')) delete schema.additionalProperties;
    writeFileSync(join(dir, name), JSON.stringify(schema, null, 2));
  }
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
