/**
 * The warnings an `npm install` printed, one short label each: `EBADENGINE name@major` for a
 * package that declares other Node.js versions, `install-scripts name` for a dependency whose
 * install script no `allowScripts` entry covers, and the line itself for any other warning.
 */
export function npmWarnings(stderr: string): string[] {
  const lines = stderr.split('\n').filter((line) => line.startsWith('npm warn'));
  const labels: string[] = [];
  for (const line of lines) {
    const engine = /^npm warn EBADENGINE\s+package: '(.+)@(\d+)[^']*'/.exec(line);
    const script = /^npm warn install-scripts\s{2,}(\S+)@\d/.exec(line);
    if (engine) labels.push(`EBADENGINE ${engine[1]}@${engine[2]}`);
    else if (script) labels.push(`install-scripts ${script[1]}`);
    else if (!/^npm warn (EBADENGINE|install-scripts)\b/.test(line)) labels.push(line);
  }
  return labels;
}
