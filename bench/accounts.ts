/**
 * The accounts and rules scenarios of `npm run bench` (bench/README.md, "Accounts and
 * rules"): per store, one restock over the example shop (bench/shop-seed.ts) with a shopper
 * signed in and a write key, and pairs of requests to that one server, each pair measured
 * back to back with its order alternating from one repetition to the next, as run.ts
 * alternates servers; then sign-ins at two hash costs (bench/sign-in.ts).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { checkPairs, deepPageOf, pairsOf, signInShopper, type Variant } from './account-pairs.js';
import { median } from './median.js';
import { ACCOUNT_SCENARIOS, SIGN_IN_COSTS } from './scenarios.js';
import { type BenchServer, startServer } from './servers.js';
import { measuredLoad, SHOP_SCHEMAS, type ShopRunOptions, scratchDatabase, seedShop } from './shop-seed.js';
import { measureSignIns, type SignInFigures } from './sign-in.js';

export interface AccountOptions extends ShopRunOptions {
  /** The shopper's orders; as many more belong to another user. */
  ownOrders: number;
  signIns: number;
}

export interface PairRun {
  scenario: string;
  store: string;
  rep: number;
  /** The request's place in its pair: the ratio is 0's over 1's. */
  position: 0 | 1;
  label: string;
  rps: number;
  /** CPU time per answered request of restock and of its database's own processes (PostgreSQL's), together. */
  cpuUsPerRequest: number;
  /** The database's part of it (0 on SQLite, which runs inside restock). */
  databaseUsPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

export interface PairFigures {
  scenario: string;
  title: string;
  store: string;
  labels: [string, string];
  rps: [number, number];
  cpuUs: [number, number];
  /** Median over repetitions of the first's req/s ÷ the second's, measured back to back. */
  ratio: number;
  ratioRange: [number, number];
  /** Median over repetitions of the second's CPU time per request ÷ the first's. */
  cpuRatio: number;
  target: number;
  met: boolean;
  errors: number;
}

/** One store's session: seed, serve, check, then warm-up and repetitions of every wanted pair. */
async function runStore(store: string, wanted: readonly string[], options: AccountOptions, runs: PairRun[]) {
  const scratch = await scratchDatabase(store, options.work);
  if (!scratch) {
    options.log(`bench: accounts on ${store} skipped: no PostgreSQL answers (TEST_POSTGRES_URL)`);
    return;
  }
  let server: BenchServer | undefined;
  try {
    const started = performance.now();
    const shop = await seedShop(scratch.url, options.ownOrders);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    options.log(`bench: accounts on ${store}: ${2 * options.ownOrders} orders seeded in ${seconds} s`);
    const key = randomBytes(32).toString('hex');
    server = await startServer({
      target: 'restock',
      database: scratch.sqlitePath,
      pin: options.pins.server,
      env: {
        SCHEMAS: SHOP_SCHEMAS,
        API_KEYS: `bench:write:${key}`,
        ...(store === 'postgres' && { DATABASE_URL: scratch.url }),
        ...options.env,
      },
    });
    const url = server.url;
    const deep = deepPageOf(options.ownOrders);
    const pairs = pairsOf(shop, await signInShopper(url), key, deep);
    await checkPairs(url, pairs, shop, deep);
    const load = async (variant: Variant, seconds: number) => {
      const { result, cpuUs, databaseUs } = await measuredLoad(server as BenchServer, scratch, {
        url,
        scenario: variant,
        connections: options.connections,
        seconds,
        idFrom: 1,
        idTo: 1,
        pin: options.pins.load,
      });
      const per = (us: number) => (result.requests > 0 ? us / result.requests : Number.NaN);
      return { ...result, cpuUsPerRequest: per(cpuUs + databaseUs), databaseUsPerRequest: per(databaseUs) };
    };
    if (options.warmup > 0) for (const name of wanted) for (const v of pairs[name] ?? []) await load(v, options.warmup);
    for (let rep = 1; rep <= options.reps; rep++) {
      for (const scenario of wanted) {
        const pair = pairs[scenario] as [Variant, Variant];
        for (const position of rep % 2 === 1 ? ([0, 1] as const) : ([1, 0] as const)) {
          const variant = pair[position];
          const r = await load(variant, options.duration);
          runs.push({ scenario, store, rep, position, label: variant.label, ...r });
          const database = store === 'sqlite' ? '' : ` (${r.databaseUsPerRequest.toFixed(0)} of it PostgreSQL's)`;
          const errors = r.errors > 0 ? `  ${r.errors} ERRORS ${JSON.stringify(r.errorKinds)}` : '';
          options.log(
            `  ${store} ${scenario.padEnd(15)} ${variant.label.padEnd(9)} rep ${rep}: ${r.rps.toFixed(0).padStart(6)} req/s ` +
              `p99 ${r.p99Ms.toFixed(2)} ms, ${r.cpuUsPerRequest.toFixed(0)} µs CPU/req${database}${errors}`,
          );
        }
      }
    }
  } finally {
    await server?.stop();
    await scratch.drop();
  }
}

/** One scenario's figures on one store: medians over its repetitions, ratios taken pair by pair. */
function summarize(runs: readonly PairRun[], store: string, scenario: string): PairFigures | undefined {
  const definition = ACCOUNT_SCENARIOS.find((s) => s.name === scenario);
  const mine = runs.filter((r) => r.store === store && r.scenario === scenario);
  const [first, second] = [0, 1].map((p) => mine.find((r) => r.position === p)?.label) as [string, string];
  if (!definition || first === undefined || second === undefined) return undefined;
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (const rep of new Set(mine.map((r) => r.rep))) {
    const x = mine.find((r) => r.rep === rep && r.position === 0);
    const y = mine.find((r) => r.rep === rep && r.position === 1);
    if (!x || !y) continue;
    ratios.push(x.rps / y.rps);
    cpuRatios.push(y.cpuUsPerRequest / x.cpuUsPerRequest);
  }
  const of = (label: string, pick: (r: PairRun) => number) => median(mine.filter((r) => r.label === label).map(pick));
  const target = definition.target ?? 0;
  const ratio = median(ratios);
  return {
    scenario,
    title: definition.title,
    store,
    labels: [first, second],
    rps: [of(first, (r) => r.rps), of(second, (r) => r.rps)],
    cpuUs: [of(first, (r) => r.cpuUsPerRequest), of(second, (r) => r.cpuUsPerRequest)],
    ratio,
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    cpuRatio: median(cpuRatios),
    target,
    met: ratio >= target && median(cpuRatios) >= target,
    errors: mine.reduce((sum, r) => sum + r.errors, 0),
  };
}

export interface AccountReport {
  ownOrders: number;
  deepPage: number;
  pairs: PairFigures[];
  signIns: SignInFigures[];
  runs: PairRun[];
}

/** Every wanted accounts scenario on every wanted store it runs on; undefined when none is wanted. */
export async function runAccountScenarios(options: AccountOptions): Promise<AccountReport | undefined> {
  const wanted = ACCOUNT_SCENARIOS.filter((s) => options.scenarios.includes(s.name));
  if (wanted.length === 0) return undefined;
  const runs: PairRun[] = [];
  const pairs: PairFigures[] = [];
  for (const store of options.stores) {
    const names = wanted.filter((s) => s.name !== 'sign-in' && s.stores.some((x) => x === store)).map((s) => s.name);
    if (names.length === 0) continue;
    await runStore(store, names, options, runs);
    for (const name of names) {
      const figures = summarize(runs, store, name);
      if (figures) pairs.push(figures);
    }
  }
  const signIns: SignInFigures[] = [];
  if (wanted.some((s) => s.name === 'sign-in')) {
    for (const [i, cost] of SIGN_IN_COSTS.entries()) {
      const database = join(options.work, `sign-in-${i}.db`);
      const { signIns: count, env } = options;
      const figures = await measureSignIns({ cost, signIns: count, database, pin: options.pins.server, env });
      options.log(
        `  sign-in at ${cost}: ${figures.perSecond.toFixed(2)}/s, ${figures.cpuSecondsEach.toFixed(3)} s CPU each`,
      );
      signIns.push(figures);
    }
  }
  return { ownOrders: options.ownOrders, deepPage: deepPageOf(options.ownOrders), pairs, signIns, runs };
}
