/**
 * The mistakes of a database URL that PostgreSQL answers at the first connection (no such
 * database, no such role, a wrong password), as one line saying what to do: they are
 * fixed by the operator, not by waiting, so they are no "unavailable" to retry.
 */
import { DatabaseError } from 'pg';
import { StoreSetupError } from '../store.js';

/** SQLSTATE invalid_catalog_name: the URL names a database the server does not have. */
const NO_DATABASE = '3D000';
/** invalid_authorization_specification (no such role) and invalid_password. */
const NO_ROLE = '28000';
const BAD_PASSWORD = '28P01';

/** The one-line refusal for `error`, met connecting to `url`, if it is such a mistake. */
export function connectionRefusal(error: unknown, url: string): StoreSetupError | undefined {
  if (!(error instanceof DatabaseError)) return undefined;
  const { host, port, user, database } = partsOf(url);
  // -h, -p and -U as the URL gives them, so the hint runs against the same server as the URL.
  const target = `-h ${host} -p ${port} -U ${user}`;
  if (error.code === NO_DATABASE) {
    return new StoreSetupError(
      `PostgreSQL at ${host}:${port} has no database "${database}" (the database URL names it); create it with: createdb ${target} ${database}`,
    );
  }
  if (error.code === NO_ROLE && /role .* does not exist/.test(error.message)) {
    return new StoreSetupError(
      `PostgreSQL at ${host}:${port} has no role "${user}" (the user of the database URL); name another user in the URL, or create it with: createuser -h ${host} -p ${port} ${user}`,
    );
  }
  if (error.code === BAD_PASSWORD || error.code === NO_ROLE) {
    return new StoreSetupError(
      `PostgreSQL at ${host}:${port} refused the user "${user}" of the database URL: ${error.message}`,
    );
  }
  return undefined;
}

/** The URL's parts, with node-postgres's defaults for those it leaves out; never its password. */
function partsOf(url: string): { host: string; port: string; user: string; database: string } {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  const user = decodeURIComponent(parsed?.username ?? '') || process.env.USER || 'postgres';
  return {
    host: parsed?.hostname || 'localhost',
    port: parsed?.port || '5432',
    user,
    database: decodeURIComponent(parsed?.pathname.slice(1) ?? '') || user,
  };
}
