/**
 * Files in the console, in real Chromium against the real server process serving the shop
 * with a staff key: a file field is a file picker taking the field's types (several files
 * where the field holds several), a product created from the form with a picture is sent as
 * multipart/form-data, and the list then shows the picture's thumbnail, loaded (fetched with
 * the console's key, as an <img> cannot send it); the editor shows it too, with a box to keep it.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { WRITE_KEY } from './helpers/keys.js';
import type { RunningServer } from './helpers/server.js';
import { SHOTS, shopConsole } from './helpers/shop-console.js';
import { png } from './helpers/uploads.js';

describe('files in the console, in Chromium', () => {
  const shop = shopConsole(async () => {});
  const { api, pageErrors } = shop;
  let server: RunningServer;
  let page: Page;
  beforeEach(() => {
    ({ server, page } = shop);
  });

  const listSays = (text: RegExp | string) => page.locator('#list-status').filter({ hasText: text }).waitFor();
  const fileInput = (field: string) => page.locator(`.schema-fields [data-field="${field}"] input[type="file"]`);
  /** The width of the first thumbnail under `selector`, once its bytes (a blob: URL) have loaded and decoded. */
  const thumbWidth = async (selector: string) => {
    const image = page.locator(`${selector} img.thumb[src^="blob:"]`).first();
    await image.waitFor();
    return image.evaluate(async (element) => {
      const img = element as unknown as { decode(): Promise<void>; naturalWidth: number };
      await img.decode();
      return img.naturalWidth;
    });
  };
  /** The `accept` and `multiple` of a file field's input. */
  const pickerOf = async (field: string) => {
    await fileInput(field).waitFor();
    return fileInput(field).evaluate((input) => {
      const { accept, multiple } = input as unknown as { accept: string; multiple: boolean };
      return [accept, multiple];
    });
  };

  it("offers each file field as a file picker of the field's types", async () => {
    await page.goto(`${server.url}/#orders`);
    assert.deepEqual(await pickerOf('attachments'), ['application/pdf,image/png,image/jpeg', true]);
    await page.goto(`${server.url}/#products`);
    assert.deepEqual(await pickerOf('picture'), ['image/png,image/jpeg,image/webp', false]);
    assert.deepEqual(pageErrors, []);
  });

  it("creates a product with a picture from the form, and shows the picture's thumbnail in the list", async () => {
    await page.goto(`${server.url}/#products`);
    await fileInput('picture').waitFor();
    await page.getByLabel('API key').fill(WRITE_KEY);
    await page.getByLabel('API key').press('Enter');
    await page.locator('.schema-fields [data-field="name"] input').fill('Mug');
    const picture = await png(300, 200);
    await fileInput('picture').setInputFiles({ name: 'mug.png', mimeType: 'image/png', buffer: picture });
    const [created] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/product/` && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create product', exact: true }).click(),
    ]);
    assert.equal(created.status(), 201, await created.text());
    assert.match(created.request().headers()['content-type'] ?? '', /^multipart\/form-data; boundary=/);
    const mug = (await created.json()) as { id: number; name: string; picture: { type: string; size: number } };
    assert.deepEqual([mug.name, mug.picture.type, mug.picture.size], ['Mug', 'image/png', picture.length]);
    await listSays(`Created product ${mug.id}.`);

    // In the list: the picture's thumbnail, loaded; in the editor: the picture, kept unless unticked.
    assert.equal(await thumbWidth('#records'), 100, 'the 100x100 thumbnail');
    assert.equal(await thumbWidth('.schema-fields'), 100);
    assert.equal(
      await page.getByRole('checkbox', { name: `Keep ${(await heldPicture(mug.id)).name}` }).isChecked(),
      true,
    );
    await page.locator('#list-title').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/files.png` });

    // Saved again without a change to the picture, the product keeps it.
    await page.locator('.schema-fields [data-field="price"] input').fill('8');
    const [saved] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${server.url}/product/${mug.id}/` && r.request().method() === 'PUT'),
      page.getByRole('button', { name: 'Save changes', exact: true }).click(),
    ]);
    assert.equal(saved.status(), 200);
    assert.deepEqual((await saved.json()).picture, mug.picture);
    assert.deepEqual(pageErrors, []);
  });

  /** The product's picture as restock holds it. */
  async function heldPicture(id: number): Promise<{ name: string }> {
    return (await api('GET', `/product/${id}/`)).body.picture;
  }
});
