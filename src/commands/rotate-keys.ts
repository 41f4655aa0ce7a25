/**
 * `restock rotate-keys`: adds a new key for signing access tokens. Running instances sign
 * with it once they read the keys again (within a minute); tokens the earlier keys signed
 * stay valid until they expire, and keys superseded longer ago than any of their tokens can
 * live are removed.
 */
import { loadCatalog } from '../core/load-catalog.js';
import { CLOCK_TOLERANCE_SECONDS, rotateSigningKeys } from '../records/accounts/index.js';
import { openStore, storeOptionsOf } from '../store/open-store.js';
import type { CommandContext } from './command.js';

export async function runRotateKeys({ config, io }: CommandContext): Promise<number> {
  const store = await openStore(config.databaseUrl, loadCatalog(config), storeOptionsOf(config));
  try {
    // The access-token life the servers are given (ACCESS_TOKEN_MINUTES): a key is kept until
    // the last token it signed has expired. Servers given a longer one must be given it here too.
    const { kid, kept, removed } = await rotateSigningKeys(store.accounts, {
      accessTokenSeconds: config.accessTokenMinutes * 60,
      clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS,
    });
    io.stdout.write(
      `added signing key ${kid} to the ${store.dialect} database: instances sign with it within a minute; ` +
        `${kept} ${kept === 1 ? 'key' : 'keys'} kept, ${removed} expired ${removed === 1 ? 'key' : 'keys'} removed\n`,
    );
  } finally {
    await store.close();
  }
  return 0;
}
