/**
 * Rewrites the table of settings in docs/configuration.md from their declaration
 * (src/config/settings.ts): `npm run docs:settings` after adding or changing a setting.
 * test/settings-docs.test.ts fails while the document's table differs from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from '../src/config/index.js';

const document = new URL('../docs/configuration.md', import.meta.url);
const before = readFileSync(document, 'utf8');
const after = withSettingsTable(before);
if (after === before) {
  console.log('docs/configuration.md: the settings table is up to date');
} else {
  writeFileSync(document, after);
  console.log('docs/configuration.md: rewrote the settings table');
}
