/**
 * The document and the server agree, as a property-based fuzzer finds them: requests drawn
 * from the served /openapi.json for every operation (./helpers/openapi-fuzz.ts), sent as
 * an administrator (the write key), as a signed-in shopper and anonymously, on the example
 * shop on both stores; every answer checked against the document (./helpers/openapi-validator.ts)
 * and as ./helpers/openapi-fuzz-checks.ts says. Seeded and bounded: the same requests each run.
 * Then each documented path with each method it does not list, TRACE among them: 405 with Allow.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { defaultConfig } from '../src/config/index.js';
import { buildApp } from '../src/http/app.js';
import { authorization } from './helpers/keys.js';
import { type OpenApiDocument, operationsOf, requestOf, resolverOf } from './helpers/openapi-fuzz.js';
import { factsOf, mismatchesOf, type Sender } from './helpers/openapi-fuzz-checks.js';
import { type ContractRecorder, checkAgainstDocument } from './helpers/openapi-validator.js';
import { openShop, type Shop, shopSettings } from './helpers/shop-accounts.js';
import { STORE_KINDS, type TestDatabase } from './helpers/stores.js';

/**
 * Requests drawn per operation and sender (about 3,400 a store, in some 10 s) and the seed:
 * fixed, so each run sends the same. RESTOCK_FUZZ_RUNS and RESTOCK_FUZZ_SEED draw others, to
 * search further by hand; a mismatch found so is fixed, not left to the next seed.
 */
const RUNS_PER_OPERATION = Number(process.env.RESTOCK_FUZZ_RUNS ?? 20);
const SEED = Number(process.env.RESTOCK_FUZZ_SEED ?? 20261128);
const SENDERS: readonly Sender[] = ['shopper', 'anonymous', 'admin'];

function credentialOf(shop: Shop, sender: Sender): Record<string, string> {
  if (sender === 'admin') return authorization('write');
  if (sender === 'shopper') return { authorization: `Bearer ${shop.people.ada.token}` };
  return {};
}

for (const kind of STORE_KINDS) {
  describe(`a fuzzer from the OpenAPI document finds no mismatch (${kind.name})`, () => {
    let db: TestDatabase;
    let app: FastifyInstance;
    let contract: ContractRecorder;
    let shop: Shop;
    let document: OpenApiDocument;
    before(async () => {
      db = await kind.create();
      app = await buildApp({
        // Mail "sent" to the log (never, as the app does not listen): a reset request is then 202, not 503.
        config: defaultConfig({
          maxEventLoopDelay: 0,
          ...shopSettings({ rateLimitMax: 0, mailLogLinks: true }),
          databaseUrl: db.url,
        }),
        logStream: false,
      });
      contract = checkAgainstDocument(app);
      await app.ready();
      await contract.load();
      shop = await openShop(app);
      document = JSON.parse((await app.inject({ url: '/openapi.json' })).body) as OpenApiDocument;
    });
    after(async () => {
      await app?.close();
      await db?.drop();
    });

    it('answers every drawn request as the document says', async () => {
      const operations = operationsOf(document);
      const resolve = resolverOf(document);
      const facts = factsOf(document);
      const ids = [shop.productId, shop.people.ada.id, shop.people.bob.id, shop.orders.ada, shop.orders.bob];
      const mismatches = new Map<string, number>();
      let sent = 0;
      const answered = new Map<string, number>();
      for (const [s, sender] of SENDERS.entries()) {
        for (const [o, operation] of operations.entries()) {
          const requests = fc.sample(requestOf(operation, resolve, ids), {
            seed: SEED + s * 1000 + o,
            numRuns: RUNS_PER_OPERATION,
          });
          for (const request of requests) {
            const headers = { ...(request.headers as Record<string, string>), ...credentialOf(shop, sender) };
            const before = { violations: contract.violations.length, outcomes: contract.outcomes.length };
            const response = await app.inject({ ...request, headers } as InjectOptions);
            sent++;
            const group = `${String(response.statusCode).charAt(0)}xx`;
            answered.set(group, (answered.get(group) ?? 0) + 1);
            const outcome = contract.outcomes.slice(before.outcomes).at(-1);
            const found = [
              ...contract.violations.slice(before.violations).map((line) => `document: ${line}`),
              ...mismatchesOf(operation, sender, { ...request, headers }, response, outcome?.refused, facts),
            ];
            for (const line of found) mismatches.set(line, (mismatches.get(line) ?? 0) + 1);
          }
        }
      }
      // The figure a report quotes: how many requests one run sends, on this store.
      const classes = [...answered].sort().map(([group, count]) => `${count} ${group}`);
      process.stdout.write(
        `# ${kind.name}: ${sent} requests over ${operations.length} operations: ${classes.join(', ')}\n`,
      );
      assert.ok(sent >= operations.length * RUNS_PER_OPERATION * SENDERS.length * 0.9, `${sent} requests sent`);
      assert.ok(
        contract.outcomes.some((outcome) => outcome.status < 300),
        'some drawn requests succeeded, so the fuzzer reached past the refusals',
      );
      const found = [...mismatches.keys()].sort();
      assert.equal(found.length, 0, `${found.length} distinct mismatches:\n${found.join('\n')}`);
    });

    it('answers a method a documented path does not list, TRACE among them, with 405 and Allow', async () => {
      const wrong: string[] = [];
      for (const [path, item] of Object.entries(document.paths)) {
        const url = path.replace('{id}', String(shop.productId)).replace('{kind}', 'not-found');
        for (const method of ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'TRACE'] as const) {
          if (item[method.toLowerCase()]) continue;
          const response = await app.inject({ method, url, headers: authorization('write') });
          if (response.statusCode !== 405 || !response.headers.allow) {
            wrong.push(`${method} ${url} → ${response.statusCode} (Allow: ${response.headers.allow ?? 'none'})`);
          }
        }
      }
      assert.equal(wrong.length, 0, wrong.join('\n'));
    });
  });
}
