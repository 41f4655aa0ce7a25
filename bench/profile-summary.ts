/**
 * Reads a V8 CPU profile (node --cpu-prof, or `npm run bench -- --cpu-prof`) and prints
 * where the time went: by package or source folder, and the functions with the most self
 * time and the most total time.
 *
 * Usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg = '25'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: profile-summary <file.cpuprofile> [top]\n');
  process.exit(1);
}
const top = Number(topArg);
// Piped into `head`: stop quietly when the reader has had enough.
process.stdout.on('error', () => process.exit(0));
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** Microseconds of samples whose top frame is each node. */
const selfTime = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...selfTime.values()].reduce((a, b) => a + b, 0);

/** Where a frame's code lives: a package, a folder of this project, node itself, or V8. */
function place(url: string): string {
  if (url === '') return '(native / V8)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  const local = /\/(dist|src|bench)\/(.*)$/.exec(url);
  return local ? `${local[1]}/${local[2]}` : url;
}

const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${place(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const selfByPlace = new Map<string, number>();
const selfByFunction = new Map<string, number>();
const totalByFunction = new Map<string, number>();
for (const [id, time] of selfTime) {
  const node = byId.get(id) as ProfileNode;
  const where = node.callFrame.functionName.startsWith('(') ? node.callFrame.functionName : place(node.callFrame.url);
  selfByPlace.set(where, (selfByPlace.get(where) ?? 0) + time);
  selfByFunction.set(label(node), (selfByFunction.get(label(node)) ?? 0) + time);
  // Total time: every distinct function on the stack of these samples.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const name = label(byId.get(at) as ProfileNode);
    if (seen.has(name)) continue;
    seen.add(name);
    totalByFunction.set(name, (totalByFunction.get(name) ?? 0) + time);
  }
}

function print(title: string, table: Map<string, number>): void {
  process.stdout.write(`\n${title}\n`);
  const rows = [...table].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, time] of rows) {
    process.stdout.write(`${((100 * time) / total).toFixed(1).padStart(6)}%  ${name}\n`);
  }
}

process.stdout.write(`${file}: ${(total / 1e6).toFixed(2)} s of samples\n`);
print('self time by package or folder', selfByPlace);
print('self time by function', selfByFunction);
print('total time by function', totalByFunction);
