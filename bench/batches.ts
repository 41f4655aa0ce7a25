/**
 * The batch scenarios of `npm run bench` (bench/README.md, "Batches"): per store, one
 * restock over the example shop with a write key, and requests to that one server measured
 * back to back, their order alternating from one repetition to the next, with the warm-up,
 * repetitions, connections and core pins of the other scenarios.
 *
 * - `batch-creates`: records per second of `POST /batch/` with 10 product creates, against
 *   the same products sent one per `POST /product/`, and beside them the bulk create
 *   (`POST /products/` with an array of 10), which writes as many records in one request
 *   with no batch around them.
 * - `order-batch`: the shop's order-and-stock batch, an order for an existing user naming a
 *   product and that product's stock merged with `ifMatch`, spread over many products so
 *   that no two batches in flight name the same product: batches per second.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from './median.js';
import { BATCH_CREATES, BATCH_SCENARIOS } from './scenarios.js';
import { type BenchServer, startServer } from './servers.js';
import { measuredLoad, type Scratch, SHOP_SCHEMAS, type ShopRunOptions, scratchDatabase } from './shop-seed.js';
import type { LoadRequest } from './wrk.js';

export interface BatchOptions extends ShopRunOptions {
  /** Extra node flags for restock (`--cpu-prof`). */
  nodeFlags: string[];
}

/**
 * Products the order batches spread over. Request k names product k mod POOL: two requests
 * for one product are POOL requests apart, and with at most `connections` in flight the
 * earlier one has been answered before the later is sent, so each `ifMatch` names the
 * version the product is at (no 412 unless a batch is lost).
 */
const POOL = 1000;
/** The shoppers the orders are spread over (an order holds its user's row while it runs). */
const SHOPPERS = 100;
/**
 * Every pooled product's stock when seeded. Each order batch sets it one lower as it moves
 * the product one version on, so that stock = STOCK - (version - 1) all along: the version
 * each run starts from is read off a page of products, and the end checks it against ETags.
 */
const STOCK = 1_000_000_000;

/** One request of a scenario: its body a template filled in per request (bench/wrk/template.lua). */
interface BatchVariant {
  scenario: string;
  label: string;
  /** Records each request writes: the unit of records per second. */
  records: number;
  /** The request; `tag` makes its unique values differ from one wrk run to the next. */
  request(tag: string): LoadRequest;
  /** What each answer must be, checked on one request before anything is measured. */
  expect: { status: number; entries?: number };
}

export interface BatchRun {
  scenario: string;
  store: string;
  rep: number;
  label: string;
  requests: number;
  rps: number;
  recordsPerSecond: number;
  /** CPU time per record of restock and of its database's own processes (PostgreSQL's), together. */
  cpuUsPerRecord: number;
  /** The database's part of it (0 on SQLite, which runs inside restock). */
  databaseUsPerRecord: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  errorKinds: Record<string, number>;
}

export interface CreateFigures {
  store: string;
  /** Medians over the repetitions, by variant: `separate`, `batch`, `array`. */
  recordsPerSecond: Record<string, number>;
  cpuUsPerRecord: Record<string, number>;
  p99Ms: Record<string, number>;
  /** Median over repetitions of the batch's records/s ÷ the separate POSTs', measured back to back. */
  ratio: number;
  ratioRange: [number, number];
  /** The same for the bulk create (an array of 10 in one request) ÷ the separate POSTs. */
  arrayRatio: number;
  /** The batch's records/s ÷ the bulk create's: what the batch costs over one request writing as many. */
  batchVsArray: number;
  target: number;
  met: boolean;
  errors: number;
}

export interface OrderFigures {
  store: string;
  batchesPerSecond: number;
  batchesRange: [number, number];
  cpuUsPerBatch: number;
  databaseUsPerBatch: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Orders kept, and stock decrements kept (Σ over the pooled products of version − 1): equal when every batch was all or none. */
  orders: number;
  stockChanges: number;
  /** Every pooled product's ETag version agrees with its stock. */
  versionsAgree: boolean;
}

export interface BatchReport {
  creates: CreateFigures[];
  orders: OrderFigures[];
  runs: BatchRun[];
}

const json = (key: string) => ({ 'Content-Type': 'application/json', Authorization: `Bearer ${key}` });

/** A product as the creates send it: `sku` unique (the shop's products have a unique sku). */
const product = (name: string, sku: string) =>
  `{"name":"${name}","sku":"${sku}","price":19.99,"currency":"EUR","stock":100}`;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function variantsOf(key: string, rows: string): BatchVariant[] {
  const headers = json(key);
  const creates = (
    label: string,
    path: string,
    body: (tag: string) => string,
    records: number,
    expect: BatchVariant['expect'],
  ): BatchVariant => ({
    scenario: 'batch-creates',
    label,
    records,
    expect,
    request: (tag) => ({ method: 'POST', path, ids: 'template', body: body(tag), headers }),
  });
  const each = (tag: string, letter: string) =>
    range(BATCH_CREATES).map((i) => product(`Bench product {k}.${i}`, `${letter}-${tag}-{k}-${i}`));
  const operation = (body: string) => `{"method":"POST","path":"/product/","body":${body}}`;
  // {1} the product, {2} its shopper, {3} the version the product is at, {4} its stock after the order.
  const orderBatch =
    '[{"method":"POST","path":"/order/","body":{"userId":{2},"items":[{"productId":{1},"quantity":1,"price":19.99}],"status":"placed"}},' +
    '{"method":"PATCH","path":"/product/{1}/","ifMatch":"\\"{1}-{3}\\"","body":{"stock":{4}}}]';
  return [
    creates('separate', '/product/', (tag) => product('Bench product {k}', `S-${tag}-{k}`), 1, { status: 201 }),
    creates('batch', '/batch/', (tag) => `[${each(tag, 'B').map(operation).join(',')}]`, BATCH_CREATES, {
      status: 200,
      entries: BATCH_CREATES,
    }),
    creates('array', '/products/', (tag) => `[${each(tag, 'A').join(',')}]`, BATCH_CREATES, {
      status: 201,
      entries: BATCH_CREATES,
    }),
    {
      scenario: 'order-batch',
      label: 'order',
      records: 1,
      expect: { status: 200, entries: 2 },
      request: () => ({ method: 'POST', path: '/batch/', ids: 'template', rows, body: orderBatch, headers }),
    },
  ];
}

/** A template filled in as bench/wrk/template.lua fills the first request (k = 0, round 0): to check a variant once. */
function firstOf(template: string, row: readonly number[]): string {
  return template.replace(/\{(\w)\}/g, (whole, name: string) => {
    if (name === 'k') return '0';
    const value = row[Number(name) - 1];
    return value === undefined ? whole : String(value);
  });
}

async function call(url: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: json(key),
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

interface Shop {
  shoppers: number[];
  pool: number[];
  /** A product outside the pool, which {@link settle} writes to. */
  sentinel: number;
}

/** The shoppers and the pooled products, created through the API (bulk creates of 100). */
async function seed(url: string, key: string): Promise<Shop> {
  const create = async (plural: string, records: unknown[]) => {
    const ids: number[] = [];
    for (let at = 0; at < records.length; at += 100) {
      const answer = await call(url, key, 'POST', `/${plural}/`, records.slice(at, at + 100));
      if (answer.status !== 201) throw new Error(`seeding ${plural}: ${answer.status} ${answer.text}`);
      ids.push(...(JSON.parse(answer.text) as { id: number }[]).map((record) => record.id));
    }
    return ids;
  };
  const shoppers = await create(
    'users',
    range(SHOPPERS).map((i) => ({ name: `Shopper ${i}`, email: `shopper-${i}@example.com` })),
  );
  const pool = await create(
    'products',
    range(POOL).map((i) => ({ name: `Stocked product ${i}`, sku: `P-${i}`, price: 19.99, stock: STOCK })),
  );
  const [sentinel] = await create('products', [{ name: 'Sentinel', sku: 'SENTINEL', stock: 0 }]);
  return { shoppers, pool, sentinel: sentinel as number };
}

/**
 * Waits until every batch sent before has ended, kept or not, so that what is read next
 * (the versions a run starts from, the final check) is what they left. restock's CPU
 * going idle (waitUntilIdle) does not say so: a commit waiting on a busy disk uses no CPU.
 * On SQLite group commit commits in the order writes were queued, so a write answered now
 * comes after every write queued before it; two in turn, so that a request read in the
 * same turn as the first is queued before the second. On PostgreSQL each batch is its own
 * connection's transaction: wait until none is open. Answers how many were still open.
 */
async function settle(url: string, key: string, shop: Shop, scratch: Scratch): Promise<number> {
  for (const stock of [1, 0]) {
    const answer = await call(url, key, 'PATCH', `/product/${shop.sentinel}/`, { stock });
    if (answer.status !== 200) throw new Error(`PATCH the sentinel: ${answer.status} ${answer.text}`);
  }
  const open = await scratch.openTransactions();
  for (let waited = 0, now = open; now > 0 && waited < 10_000; waited += 20) {
    await sleep(20);
    now = await scratch.openTransactions();
  }
  return open;
}

/** The version each pooled product is at, read off its stock (stock = STOCK − (version − 1)), a page of 100 at a time. */
async function poolVersions(url: string, key: string, pool: readonly number[]): Promise<Map<number, number>> {
  const wanted = new Set(pool);
  const versions = new Map<number, number>();
  let path: string | undefined = '/products/?limit=100';
  while (path !== undefined && versions.size < wanted.size) {
    const answer = await call(url, key, 'GET', path);
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text}`);
    for (const record of JSON.parse(answer.text) as { id: number; stock: number }[]) {
      if (wanted.has(record.id)) versions.set(record.id, STOCK - record.stock + 1);
    }
    const next = /<([^>]+)>;\s*rel="next"/.exec(answer.headers.get('link') ?? '')?.[1];
    path = next === undefined ? undefined : next.replace(/^https?:\/\/[^/]+/, '');
  }
  if (versions.size < wanted.size) throw new Error(`only ${versions.size} of ${wanted.size} pooled products listed`);
  return versions;
}

/** The steps of the rows file's columns: product, shopper, version (one on per round), stock after (one lower). */
const ORDER_STEPS = [0, 0, 1, -1] as const;

/** Writes the rows the order batches of the next run take: one per pooled product, at the version it is at now. */
async function writeOrderRows(file: string, url: string, key: string, shop: Shop) {
  const versions = await poolVersions(url, key, shop.pool);
  const rows = shop.pool.map((id, i) => {
    const version = versions.get(id) as number;
    return [id, shop.shoppers[i % shop.shoppers.length] as number, version, STOCK - version];
  });
  writeFileSync(file, `${ORDER_STEPS.join(' ')}\n${rows.map((row) => row.join(' ')).join('\n')}\n`);
  return rows;
}

/** Sends one request of each variant and checks its answer, so that what is measured is what is meant. */
async function checkVariants(
  url: string,
  key: string,
  variants: readonly BatchVariant[],
  orderRow: () => Promise<number[]>,
) {
  for (const variant of variants) {
    const request = variant.request('check');
    const row = variant.scenario === 'order-batch' ? await orderRow() : [];
    const body = firstOf(request.body ?? '', row);
    const answer = await call(url, key, request.method, request.path, body);
    const entries = answer.status < 300 ? (JSON.parse(answer.text) as unknown[]) : [];
    const { status, entries: count } = variant.expect;
    if (answer.status !== status || (count !== undefined && entries.length !== count)) {
      throw new Error(`${variant.scenario} ${variant.label}: ${answer.status} ${answer.text.slice(0, 500)}`);
    }
  }
}

/** After the runs: orders kept equal stock changes kept, and each pooled product's ETag agrees with its stock. */
async function checkOrders(url: string, key: string, pool: readonly number[]) {
  const counted = await fetch(`${url}/orders/?limit=1`, { headers: { ...json(key), Prefer: 'count=exact' } });
  const text = await counted.text();
  if (counted.status !== 200) throw new Error(`GET /orders/: ${counted.status} ${text}`);
  const orders = Number(counted.headers.get('x-total-count'));
  let stockChanges = 0;
  let versionsAgree = true;
  for (const id of pool) {
    const answer = await call(url, key, 'GET', `/product/${id}/`);
    const version = Number(/^"\d+-(\d+)"$/.exec(answer.headers.get('etag') ?? '')?.[1]);
    const { stock } = JSON.parse(answer.text) as { stock: number };
    if (version !== STOCK - stock + 1) versionsAgree = false;
    stockChanges += STOCK - stock;
  }
  return { orders, stockChanges, versionsAgree };
}

/** One store's session: seed, serve, check, then warm-up and repetitions of every wanted variant. */
async function runStore(store: string, wanted: readonly string[], options: BatchOptions, report: BatchReport) {
  const scratch = await scratchDatabase(store, options.work);
  if (!scratch) {
    options.log(`bench: batches on ${store} skipped: no PostgreSQL answers (TEST_POSTGRES_URL)`);
    return;
  }
  let server: BenchServer | undefined;
  const runs: BatchRun[] = [];
  try {
    const key = randomBytes(32).toString('hex');
    server = await startServer({
      target: 'restock',
      database: scratch.sqlitePath,
      pin: options.pins.server,
      nodeFlags: options.nodeFlags,
      env: {
        SCHEMAS: SHOP_SCHEMAS,
        API_KEYS: `bench:write:${key}`,
        ...(store === 'postgres' && { DATABASE_URL: scratch.url }),
        ...options.env,
      },
    });
    const { url } = server;
    const shop = await seed(url, key);
    options.log(`bench: batches on ${store}: ${SHOPPERS} shoppers and ${POOL} stocked products seeded`);
    const rowsFile = join(options.work, `order-rows-${store}.txt`);
    const variants = variantsOf(key, rowsFile).filter((v) => wanted.includes(v.scenario));
    await checkVariants(url, key, variants, async () => (await writeOrderRows(rowsFile, url, key, shop))[0] ?? []);
    let runNumber = 0;
    const settled = async () => {
      const open = await settle(url, key, shop, scratch);
      if (open > 0) options.log(`  ${store}: waited for ${open} transactions still open after restock went idle`);
    };
    const load = async (variant: BatchVariant, seconds: number) => {
      const bench = server as BenchServer;
      // Each run starts from the versions the products are at: a batch cut off at the end
      // of the run before may or may not have been kept.
      if (variant.scenario === 'order-batch') {
        await settled();
        await writeOrderRows(rowsFile, url, key, shop);
      }
      const { result, cpuUs, databaseUs } = await measuredLoad(bench, scratch, {
        url,
        scenario: variant.request(`${store}${++runNumber}`),
        connections: options.connections,
        seconds,
        idFrom: 0,
        idTo: 0,
        pin: options.pins.load,
      });
      const records = result.requests * variant.records;
      const per = (us: number) => (records > 0 ? us / records : Number.NaN);
      return {
        ...result,
        recordsPerSecond: result.rps * variant.records,
        cpuUsPerRecord: per(cpuUs + databaseUs),
        databaseUsPerRecord: per(databaseUs),
      };
    };
    if (options.warmup > 0) for (const variant of variants) await load(variant, options.warmup);
    for (let rep = 1; rep <= options.reps; rep++) {
      for (const variant of rep % 2 === 1 ? variants : [...variants].reverse()) {
        const r = await load(variant, options.duration);
        const { requests, rps, recordsPerSecond, cpuUsPerRecord, databaseUsPerRecord, p50Ms, p99Ms } = r;
        const { errors, errorKinds } = r;
        runs.push({
          scenario: variant.scenario,
          store,
          rep,
          label: variant.label,
          requests,
          rps,
          recordsPerSecond,
          cpuUsPerRecord,
          databaseUsPerRecord,
          p50Ms,
          p99Ms,
          errors,
          errorKinds,
        });
        const unit = variant.scenario === 'order-batch' ? 'batches/s' : 'records/s';
        const database = store === 'sqlite' ? '' : ` (${databaseUsPerRecord.toFixed(0)} of it PostgreSQL's)`;
        const failed = errors > 0 ? `  ${errors} ERRORS ${JSON.stringify(errorKinds)}` : '';
        options.log(
          `  ${store} ${variant.scenario.padEnd(14)} ${variant.label.padEnd(9)} rep ${rep}: ` +
            `${recordsPerSecond.toFixed(0).padStart(6)} ${unit}, ${rps.toFixed(0)} req/s, p99 ${p99Ms.toFixed(2)} ms, ` +
            `${cpuUsPerRecord.toFixed(0)} µs CPU/${variant.scenario === 'order-batch' ? 'batch' : 'record'}${database}${failed}`,
        );
      }
    }
    report.runs.push(...runs);
    const creates = summarizeCreates(runs, store);
    if (creates) report.creates.push(creates);
    if (wanted.includes('order-batch')) {
      await settled();
      const check = await checkOrders(url, key, shop.pool);
      const orders = summarizeOrders(runs, store, check);
      if (orders) report.orders.push(orders);
    }
  } finally {
    await server?.stop();
    await scratch.drop();
  }
}

function summarizeCreates(runs: readonly BatchRun[], store: string): CreateFigures | undefined {
  const mine = runs.filter((r) => r.scenario === 'batch-creates');
  if (mine.length === 0) return undefined;
  const of = (label: string, pick: (r: BatchRun) => number) => median(mine.filter((r) => r.label === label).map(pick));
  const byLabel = (pick: (r: BatchRun) => number) =>
    Object.fromEntries(['separate', 'batch', 'array'].map((label) => [label, of(label, pick)]));
  const ratios = (over: string, under: string) => {
    const found: number[] = [];
    for (const rep of new Set(mine.map((r) => r.rep))) {
      const x = mine.find((r) => r.rep === rep && r.label === over);
      const y = mine.find((r) => r.rep === rep && r.label === under);
      if (x && y) found.push(x.recordsPerSecond / y.recordsPerSecond);
    }
    return found;
  };
  const batch = ratios('batch', 'separate');
  const target = BATCH_SCENARIOS.find((s) => s.name === 'batch-creates')?.target ?? 0;
  return {
    store,
    recordsPerSecond: byLabel((r) => r.recordsPerSecond),
    cpuUsPerRecord: byLabel((r) => r.cpuUsPerRecord),
    p99Ms: byLabel((r) => r.p99Ms),
    ratio: median(batch),
    ratioRange: [Math.min(...batch), Math.max(...batch)],
    arrayRatio: median(ratios('array', 'separate')),
    batchVsArray: median(ratios('batch', 'array')),
    target,
    met: median(batch) >= target,
    errors: mine.reduce((sum, r) => sum + r.errors, 0),
  };
}

function summarizeOrders(
  runs: readonly BatchRun[],
  store: string,
  check: Pick<OrderFigures, 'orders' | 'stockChanges' | 'versionsAgree'>,
): OrderFigures | undefined {
  const mine = runs.filter((r) => r.scenario === 'order-batch');
  if (mine.length === 0) return undefined;
  const rates = mine.map((r) => r.recordsPerSecond);
  return {
    store,
    batchesPerSecond: median(rates),
    batchesRange: [Math.min(...rates), Math.max(...rates)],
    cpuUsPerBatch: median(mine.map((r) => r.cpuUsPerRecord)),
    databaseUsPerBatch: median(mine.map((r) => r.databaseUsPerRecord)),
    p50Ms: median(mine.map((r) => r.p50Ms)),
    p99Ms: median(mine.map((r) => r.p99Ms)),
    errors: mine.reduce((sum, r) => sum + r.errors, 0),
    ...check,
  };
}

/** Every wanted batch scenario on every wanted store; undefined when none is wanted. */
export async function runBatchScenarios(options: BatchOptions): Promise<BatchReport | undefined> {
  const wanted = BATCH_SCENARIOS.filter((s) => options.scenarios.includes(s.name)).map((s) => s.name);
  if (wanted.length === 0) return undefined;
  const report: BatchReport = { creates: [], orders: [], runs: [] };
  for (const store of options.stores) await runStore(store, wanted, options, report);
  return report;
}

/** The printed table of the batch scenarios. */
export function batchReportLines(report: BatchReport): string[] {
  const n = (value: number) => value.toLocaleString('en', { maximumFractionDigits: 0 });
  const lines: string[] = [];
  if (report.creates.length > 0) {
    lines.push(
      `batches: ${BATCH_CREATES} product creates per POST /batch/ against one per POST /product/, and the bulk create ` +
        `(POST /products/, an array of ${BATCH_CREATES}) beside them; records/s (CPU µs per record)`,
      `${'store'.padEnd(9)}${'separate'.padEnd(18)}${'batch'.padEnd(18)}${'array'.padEnd(18)}` +
        `${'batch ÷ separate'.padEnd(22)}${'array ÷ sep.'.padEnd(14)}${'batch ÷ array'.padEnd(15)}target`,
    );
    for (const c of report.creates) {
      const cell = (label: string) =>
        `${n(c.recordsPerSecond[label] as number).padStart(6)} (${n(c.cpuUsPerRecord[label] as number)})`.padEnd(18);
      const range = `${c.ratioRange[0].toFixed(2)}–${c.ratioRange[1].toFixed(2)}`;
      const errors = c.errors > 0 ? `  (${c.errors} errors!)` : '';
      lines.push(
        `${c.store.padEnd(9)}${cell('separate')}${cell('batch')}${cell('array')}` +
          `${`${c.ratio.toFixed(2)}x (${range})`.padEnd(22)}${`${c.arrayRatio.toFixed(2)}x`.padEnd(14)}` +
          `${`${c.batchVsArray.toFixed(2)}x`.padEnd(15)}>= ${c.target}x ${c.met ? 'met' : 'NOT MET'}${errors}`,
      );
    }
  }
  if (report.orders.length > 0) {
    lines.push(
      `order batches: POST /batch/ with an order (POST /order/) and its product's stock (PATCH with ifMatch), ` +
        `over ${POOL} products`,
    );
    for (const o of report.orders) {
      const database = o.store === 'sqlite' ? '' : `, ${n(o.databaseUsPerBatch)} of it PostgreSQL's`;
      const errors = o.errors > 0 ? `  (${o.errors} errors!)` : '';
      const kept =
        o.orders === o.stockChanges && o.versionsAgree
          ? `${n(o.orders)} orders kept, as many stock changes`
          : `INCONSISTENT: ${n(o.orders)} orders, ${n(o.stockChanges)} stock changes, ETags ${o.versionsAgree ? 'agree' : 'disagree'}`;
      lines.push(
        `  ${o.store.padEnd(9)}${n(o.batchesPerSecond).padStart(6)} batches/s (${n(o.batchesRange[0])}–${n(o.batchesRange[1])}), ` +
          `p50 ${o.p50Ms.toFixed(2)} ms, p99 ${o.p99Ms.toFixed(2)} ms, ${n(o.cpuUsPerBatch)} µs CPU per batch${database}; ` +
          `${kept}${errors}`,
      );
    }
  }
  return lines;
}
