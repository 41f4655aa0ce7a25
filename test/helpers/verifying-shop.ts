/**
 * The example shop (schemas/shop) whose users prove their email (`"x-auth": { "verify":
 * "email" }`): its schemas copied into a folder of the test's, for SCHEMAS.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes the schemas under `dir` (which the test removes); answers their folder. */
export function verifyingShop(dir: string): string {
  const schemas = join(dir, 'schemas');
  mkdirSync(schemas);
  for (const file of readdirSync('schemas/shop')) copyFileSync(join('schemas/shop', file), join(schemas, file));
  const users = join(schemas, 'users.schema.json');
  const schema = JSON.parse(readFileSync(users, 'utf8'));
  schema['x-auth'] = { ...schema['x-auth'], verify: 'email' };
  writeFileSync(users, JSON.stringify(schema));
  return schemas;
}
