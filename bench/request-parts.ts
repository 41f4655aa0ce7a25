/**
 * Where a request's CPU time goes, from a V8 CPU profile of restock under load: each sample
 * of the measured window is given to the part of the request that spent it (a service's
 * hook, the statement, the rendering, Node's HTTP, Fastify's routing…), and each part's
 * time is divided by the requests answered in the window. bench/framework-floor.ts prints it.
 *
 * A sample goes to the innermost frame on its stack that belongs to a part, so that a
 * library a service calls (pino, prom-client) counts as that service, and what the route
 * handler calls (the store, the reply's onSend hooks) as what it called. Frames of code
 * made at run time (Ajv's validators, Fastify's serializers) have no file: they count with
 * the nearest frame that has one.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The parts, in the order printed; each with what marks a frame as its own (its file's path). */
export const PARTS: readonly { part: string; files: RegExp }[] = [
  {
    part: 'socket, HTTP parsing and writing (Node)',
    files:
      /^node:(net|_http|http|stream|events|internal\/(streams|net|http|timers|stream_base|async_hooks|process\/task_queues))/,
  },
  {
    part: 'routing (find-my-way, Fastify)',
    files: /node_modules\/find-my-way\/|fastify\/lib\/route\.js|fastify\/fastify\.js/,
  },
  { part: 'validation (params, query)', files: /fastify\/lib\/(validation|schemas)\.js|node_modules\/ajv/ },
  {
    part: 'Fastify request, reply, hooks',
    files:
      /node_modules\/fastify\/|node_modules\/(fastify-plugin|avvio|light-my-request|@fastify\/(error|ajv-compiler|fast-json-stringify-compiler))\//,
  },
  { part: 'request id', files: /\/http\/plugins\/request-id\.js/ },
  { part: 'load shedding', files: /\/http\/plugins\/load-shedding\.js|@fastify\/under-pressure/ },
  { part: 'method override hooks', files: /\/http\/plugins\/method-override\// },
  { part: 'CORS', files: /\/http\/plugins\/cors\/|@fastify\/cors/ },
  { part: 'access control', files: /\/http\/plugins\/access-control\// },
  { part: 'rate limit', files: /\/http\/plugins\/rate-limit\/|@fastify\/rate-limit|toad-cache/ },
  { part: 'compression negotiation', files: /\/http\/plugins\/compression\/|@fastify\/compress|\/http\/vary\.js/ },
  { part: 'response headers', files: /\/http\/plugins\/(response-headers|lingering-close)\.js/ },
  { part: 'metrics', files: /\/http\/plugins\/metrics\/|prom-client/ },
  {
    part: 'access log (pino)',
    files:
      /\/http\/plugins\/access-log\/|node_modules\/(pino|sonic-boom|fast-redact|quick-format-unescaped|on-exit-leak-free)/,
  },
  {
    part: 'route handler (reply, ETag, checks)',
    files: /\/http\/(routes|paths|problem)|\/records\/(operations|conditional|list)|\/core\//,
  },
  { part: 'the statement (store, better-sqlite3)', files: /\/store\/|better-sqlite3/ },
  { part: 'rendering the JSON', files: /\/records\/render/ },
];

const OTHER = 'other JavaScript';
const GC = 'garbage collection';
const NATIVE = 'V8 and native, outside JavaScript';

function partOf(url: string): string | undefined {
  return PARTS.find(({ files }) => files.test(url))?.part;
}

export interface RequestParts {
  /** µs per request of each part, in {@link PARTS}' order, then the rest. */
  parts: Map<string, number>;
  /** µs per request of every sample in the window but idle ones. */
  total: number;
}

/**
 * Reads `file` and gives each part's µs per request over the samples taken in `windows`
 * (from and to in µs of the monotonic clock, as `process.hrtime` gives it and V8 stamps samples).
 */
export function requestParts(
  file: string,
  windows: readonly { from: number; to: number }[],
  requests: number,
): RequestParts {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const owner = new Map<number, string>();
  const ownerOf = (id: number): string => {
    const known = owner.get(id);
    if (known !== undefined) return known;
    const { functionName, url } = (byId.get(id) as ProfileNode).callFrame;
    let found: string | undefined;
    if (functionName === '(garbage collector)') found = GC;
    else if (functionName === '(program)') found = NATIVE;
    else if (functionName === '(idle)') found = '(idle)';
    else found = url === '' ? undefined : partOf(url);
    // Innermost part wins: a frame with none takes its caller's.
    const parentId = parent.get(id);
    const result = found ?? (parentId === undefined ? OTHER : ownerOf(parentId));
    owner.set(id, result);
    return result;
  };
  const time = new Map<string, number>();
  let at = profile.startTime;
  for (const [i, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (!windows.some(({ from, to }) => at >= from && at <= to)) continue;
    const part = ownerOf(id);
    if (part === '(idle)') continue;
    time.set(part, (time.get(part) ?? 0) + delta);
  }
  const parts = new Map<string, number>();
  for (const name of [...PARTS.map(({ part }) => part), OTHER, GC, NATIVE]) {
    parts.set(name, (time.get(name) ?? 0) / requests);
  }
  const total = [...parts.values()].reduce((a, b) => a + b, 0);
  return { parts, total };
}
