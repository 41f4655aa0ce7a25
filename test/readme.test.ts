/**
 * The README's curl walk-through, run as written against a fresh database of each store:
 * a newcomer's first minutes must work, and this keeps the text and the service in step.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { useApp } from './helpers/app.js';
import { STORE_KINDS } from './helpers/stores.js';

interface CurlStep {
  command: string;
  request: InjectOptions & { method: string; url: string };
}

/** The `curl` commands of the README section `heading`, in order. */
function curlSteps(heading: string): CurlStep[] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf(`## ${heading}`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.startsWith('curl '))
    .map((command) => ({ command, request: toRequest(shellWords(command).slice(1)) }));
}

/** Splits a command line into words, honouring the single quotes the README uses. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? '');
}

/** The request a curl command line sends (the options the README uses: -i -X -H -d). */
function toRequest(args: string[]): CurlStep['request'] {
  let method: string | undefined;
  let url = '';
  let payload: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '-i') continue;
    if (arg === '-X') method = args[++i];
    else if (arg === '-H') {
      const [name = '', ...value] = (args[++i] ?? '').split(':');
      headers[name.trim().toLowerCase()] = value.join(':').trim();
    } else if (arg === '-d') payload = args[++i];
    else if (arg.startsWith('-'))
      throw new Error(`the walk-through uses a curl option this test does not know: ${arg}`);
    else url = arg.replace(/^(https?:\/\/)?localhost:3000/, '');
  }
  // As curl does: -d without -X is a POST.
  return { method: method ?? (payload === undefined ? 'GET' : 'POST'), url, headers, payload };
}

for (const kind of STORE_KINDS) {
  describe(`the README's walk-through with curl (${kind.name})`, () => {
    const ctx = useApp(kind);

    it('succeeds step by step on a fresh database, the override steps included', async () => {
      const steps = curlSteps('A walk through with curl');
      assert.ok(steps.length >= 8, `found ${steps.length} curl commands`);
      assert.ok(steps.some((step) => step.request.headers && 'http-x-http-method' in step.request.headers));
      for (const step of steps) {
        const response = await ctx.app.inject(step.request);
        assert.ok(response.statusCode < 300, `${step.command}\n  answered ${response.statusCode} ${response.body}`);
      }
      // The last steps tunnelled a PUT and a DELETE: the product is gone, as the README says.
      const last = steps[steps.length - 1]?.request.url ?? '';
      assert.equal((await ctx.app.inject({ url: last })).statusCode, 404);
    });
  });
}
