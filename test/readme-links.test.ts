/**
 * The documents a reader gets: every relative link leads to a file, and to a heading there;
 * a curl line whose URL holds brackets passes -g. (test/readme.test.ts runs their examples.)
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The documents a reader gets: their relative links must resolve. */
const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  'SECURITY.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

const read = (document: string) => readFileSync(join(ROOT, document), 'utf8');

/** A document's text without its fenced code blocks, where no line is a heading. */
function withoutFences(text: string): string {
  return text.replace(/^ *```[\s\S]*?^ *```/gm, '');
}

/** A document's text without its code, fenced or inline, where nothing is a link. */
function prose(text: string): string {
  return withoutFences(text).replace(/`[^`\n]*`/g, '');
}

/** The anchors of a document's headings, as GitHub makes them (github-slugger). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const [, heading = ''] of withoutFences(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading
      .replaceAll('`', '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** The relative link targets of a document: Markdown links and images, and HTML `src`. */
function links(text: string): string[] {
  const body = prose(text);
  const targets = [
    ...[...body.matchAll(/\]\(([^)\s]+)(?: +"[^"]*")?\)/g)].map((m) => m[1] ?? ''),
    ...[...body.matchAll(/<img [^>]*src="([^"]+)"/g)].map((m) => m[1] ?? ''),
  ];
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the documents', () => {
  it('link only to files that exist, and to headings those files have', () => {
    const broken: string[] = [];
    for (const document of DOCUMENTS) {
      for (const target of links(read(document))) {
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? join(ROOT, document) : join(ROOT, dirname(document), decodeURI(path));
        if (!existsSync(file)) {
          broken.push(`${document}: ${target} (no such file)`);
        } else if (anchor !== undefined && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
          broken.push(`${document}: ${target} (no such heading in ${relative(ROOT, file)})`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it('finds the links and headings there are (the checker itself)', () => {
    const text =
      '# A `b`: C, d\n## A b: c, d\n```sh\n# not a heading [x](nowhere.md)\n```\n[y](y.md#z) `[w](w.md)` <img src="i.png">';
    assert.deepEqual([...anchors(text)], ['a-b-c-d', 'a-b-c-d-1']);
    assert.deepEqual(links(text), ['y.md#z', 'i.png']);
    assert.ok(anchors(read('docs/api.md')).has('change-feeds'));
    assert.ok(links(read('README.md')).includes('docs/api.md'));
  });

  it('pass -g to curl wherever a URL holds brackets, which curl would read as a range', () => {
    for (const document of DOCUMENTS) {
      for (const [, block = ''] of read(document).matchAll(/```sh\n([\s\S]*?)```/g)) {
        for (const line of block.replace(/\\\n\s*/g, ' ').split('\n')) {
          const urls = line.match(/(?:https?:\/\/|localhost:|127\.0\.0\.1:)[^'"\s]*/g) ?? [];
          if (!/^\s*curl\s/.test(line) || !urls.some((url) => /[[\]{}]/.test(url))) continue;
          const options = line.split(/\s+/).filter((word) => word.startsWith('-'));
          assert.ok(
            options.some((option) => option === '--globoff' || /^-[a-zA-Z]*g[a-zA-Z]*$/.test(option)),
            `${document}: ${line}`,
          );
        }
      }
    }
  });
});
