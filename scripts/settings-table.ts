/**
 * Rewrites the README's table of settings from their declaration (src/config/settings.ts):
 * `npm run docs:settings` after adding or changing a setting. test/settings-docs.test.ts
 * fails while the README's table differs from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from '../src/config/index.js';

const readme = new URL('../README.md', import.meta.url);
const before = readFileSync(readme, 'utf8');
const after = withSettingsTable(before);
if (after === before) {
  console.log('README.md: the settings table is up to date');
} else {
  writeFileSync(readme, after);
  console.log('README.md: rewrote the settings table');
}
