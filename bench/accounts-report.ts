/** The printed table of the accounts and rules scenarios (bench/accounts.ts). */
import type { AccountReport } from './accounts.js';

export function accountReportLines(report: AccountReport): string[] {
  const lines: string[] = [];
  const n = (value: number) => value.toLocaleString('en', { maximumFractionDigits: 0 });
  if (report.pairs.length > 0) {
    lines.push(
      `accounts and rules: schemas/shop, ${n(report.ownOrders)} orders of one shopper among ${n(2 * report.ownOrders)}, ` +
        `deep page = page ${n(report.deepPage)}; ratio = first ÷ second, both on one server, back to back`,
      `${'store'.padEnd(9)}${'scenario'.padEnd(29)}${'first: req/s (CPU/req)'.padEnd(31)}${'second'.padEnd(31)}` +
        `${'req/s ratio'.padEnd(20)}${'CPU ratio'.padEnd(11)}target`,
    );
    for (const p of report.pairs) {
      const side = (i: 0 | 1) => `${p.labels[i].padEnd(9)} ${n(p.rps[i]).padStart(6)} (${n(p.cpuUs[i])} µs)`;
      const range = `${p.ratioRange[0].toFixed(2)}–${p.ratioRange[1].toFixed(2)}`;
      const errors = p.errors > 0 ? `  (${p.errors} errors!)` : '';
      lines.push(
        `${p.store.padEnd(9)}${p.title.padEnd(29)}${side(0).padEnd(31)}${side(1).padEnd(31)}` +
          `${`${p.ratio.toFixed(2)} (${range})`.padEnd(20)}${p.cpuRatio.toFixed(2).padEnd(11)}` +
          `>= ${p.target} ${p.met ? 'met' : 'NOT MET'}${errors}`,
      );
    }
    lines.push(
      '  (CPU ratio: the second request’s CPU time per request ÷ the first’s; on PostgreSQL the CPU time ' +
        'of the backends serving the database is counted with restock’s)',
    );
  }
  if (report.signIns.length > 0) {
    const first = report.signIns[0];
    const where = first?.pinned ? 'the server on one core' : 'the server not pinned';
    lines.push(`sign-ins (POST /users/auth/), ${first?.concurrency ?? 2} at a time, ${where}:`);
    for (const s of report.signIns) {
      lines.push(
        `  PASSWORD_HASH_COST=${s.cost}: ${s.signIns} sign-ins, ${s.perSecond.toFixed(2)} a second; ` +
          `${s.cpuSecondsEach.toFixed(3)} s of CPU each (${(1 / s.cpuSecondsEach).toFixed(2)} per CPU-second); ` +
          `p50 ${n(s.p50Ms)} ms`,
      );
    }
  }
  return lines;
}
