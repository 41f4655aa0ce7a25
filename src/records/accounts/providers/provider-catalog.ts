/**
 * AUTH_PROVIDERS held against the catalog, at start, each fault in one line: every plural
 * names a collection of accounts (`x-auth`), and no provider fills the password or a
 * field the server owns from a claim.
 */
import type { ProviderSetting, ProviderSettings } from '../../../config/index.js';
import { PASSWORD_FIELD } from '../../../core/accounts.js';
import type { Catalog } from '../../../core/catalog.js';
import type { Collection } from '../../../core/collection.js';
import { ConfigError } from '../../../core/config-error.js';
import { isSystemField } from '../../../core/system-fields.js';

/** Each account collection's providers; refuses the settings' first fault with a ConfigError. */
export function providersByCollection(
  settings: ProviderSettings,
  catalog: Pick<Catalog, 'byPlural'>,
): Map<Collection, readonly ProviderSetting[]> {
  const found = new Map<Collection, readonly ProviderSetting[]>();
  for (const [plural, providers] of Object.entries(settings)) {
    const fail = (why: string) => new ConfigError(`AUTH_PROVIDERS: ${plural}: ${why}`);
    const collection = catalog.byPlural(plural);
    if (!collection) throw fail('no collection has this plural');
    if (!collection.account) throw fail('holds no accounts (its schema declares no x-auth)');
    for (const provider of providers) {
      for (const field of Object.keys(provider.fields)) {
        if (field === PASSWORD_FIELD || isSystemField(field)) {
          throw fail(`${provider.name}: "fields" cannot fill "${field}"`);
        }
      }
    }
    found.set(collection, providers);
  }
  return found;
}
