/**
 * Takes the documents' screenshots (docs/*.png) with the browser test's setup: the real
 * server on a throw-away database with a few records, Debian's Chromium through
 * playwright-core. Run with `npm run screenshots`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../test/helpers/browser.js';
import { startServer } from '../test/helpers/server.js';

const SAMPLES: [string, Record<string, unknown>][] = [
  ['user', { name: 'Ada Lovelace', email: 'ada@example.com', role: 'admin' }],
  ['user', { name: 'Grace Hopper', email: 'grace@example.com', role: 'editor' }],
  ['user', { name: 'Alan Turing', email: 'alan@example.com' }],
  ['product', { name: 'Teapot', sku: 'TEA-1', price: 19.5, stock: 12, tags: ['kitchen'] }],
  ['product', { name: 'Cast-iron kettle', sku: 'KET-2', price: 54, stock: 3, dimensions: { litres: 1.2 } }],
  ['product', { name: 'Loose-leaf tea, 250 g', sku: 'TEA-7', price: 8.9, stock: 140 }],
  ['product', { name: 'Tea cosy', sku: 'COS-3', price: 12, stock: 0 }],
];

const dir = mkdtempSync(join(tmpdir(), 'restock-screenshots-'));
const server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'restock.db')}`, LOG_LEVEL: 'info' });
const browser = await launchChromium();
try {
  for (const [singular, fields] of SAMPLES) {
    await fetch(`${server.url}/${singular}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(fields),
    });
  }
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto(`${server.url}/#products`);
  await page.getByRole('button', { name: 'Edit product 2' }).click();
  await page.getByLabel('send changes through POST with HTTP-X-HTTP-METHOD').check();
  await page
    .locator('#record-json')
    .fill(JSON.stringify({ name: 'Cast-iron kettle', sku: 'KET-2', price: 49, stock: 3 }, null, 2));
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.locator('#list-status').filter({ hasText: 'Saved product 2' }).waitFor();
  await page.screenshot({ path: 'docs/console.png' });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('about:blank');
  await page.goto(`${server.url}/#users`);
  await page
    .locator('#list-status')
    .filter({ hasText: /^Page 1: / })
    .waitFor();
  await page.screenshot({ path: 'docs/console-phone.png' });

  await page.setViewportSize({ width: 1280, height: 860 });
  await page.goto(`${server.url}/docs/`);
  await page.locator('.opblock').first().waitFor();
  await page.screenshot({ path: 'docs/reference.png' });
  process.stdout.write('wrote docs/console.png, docs/console-phone.png and docs/reference.png\n');
} finally {
  await browser.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
