/**
 * The tokens of a record rule's text (./rule-syntax.ts parses them): names (`auth.id`,
 * `address.city`), literals, operators and brackets, each with the 1-based column it starts
 * at, so that every error can point at it.
 */
import { textFault } from '../text-faults.js';
import type { RuleValue } from './rule-tree.js';

export type Punct = '==' | '!=' | '<' | '<=' | '>' | '>=' | '&&' | '||' | '!' | '(' | ')' | '[' | ']' | ',' | 'in';

export type Token = { readonly column: number; readonly text: string } & (
  | { readonly kind: 'name'; readonly path: readonly string[] }
  | { readonly kind: 'literal'; readonly value: RuleValue }
  | { readonly kind: 'punct'; readonly punct: Punct }
  | { readonly kind: 'end' }
);

/** Reports a mistake at a 1-based column; never returns. */
export type Fail = (column: number, message: string) => never;

/** Longest operators first, so that `<=` is not read as `<` then `=`. */
const PUNCTS: readonly Punct[] = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')', '[', ']', ','];

const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const BLANK = /[ \t\r\n]*/y;
const KEYWORDS: Readonly<Record<string, RuleValue>> = { true: true, false: false, null: null };
const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** The tokens of `text`, ending with an `end` token one column past its last character. */
export function tokenize(text: string, fail: Fail, singleEquals = false): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const match = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    return pattern.exec(text)?.[0];
  };
  for (;;) {
    at += (match(BLANK) ?? '').length;
    const column = at + 1;
    if (at >= text.length) {
      tokens.push({ kind: 'end', column, text: '' });
      return tokens;
    }
    const char = text[at] as string;
    const number = match(NUMBER);
    if (number) {
      at += number.length;
      const value = Number(number);
      if (!Number.isFinite(value)) fail(column, `the number ${number} is out of range`);
      if (/[A-Za-z0-9_.]/.test(text[at] ?? '')) fail(at + 1, `expected an operator after the number ${number}`);
      tokens.push({ kind: 'literal', value, column, text: number });
    } else if (char === "'" || char === '"') {
      const [value, end] = readString(text, at, fail);
      tokens.push({ kind: 'literal', value, column, text: text.slice(at, end) });
      at = end;
    } else if (match(WORD)) {
      const [path, end] = readName(text, at, fail);
      const word = text.slice(at, end);
      if (path.length === 1 && word === 'in') tokens.push({ kind: 'punct', punct: 'in', column, text: word });
      else if (path.length === 1 && Object.hasOwn(KEYWORDS, word)) {
        tokens.push({ kind: 'literal', value: KEYWORDS[word] as RuleValue, column, text: word });
      } else tokens.push({ kind: 'name', path, column, text: word });
      at = end;
    } else {
      // A filter also takes `=` for `==`, as the query strings of other APIs write it.
      const punct = PUNCTS.find((p) => text.startsWith(p, at)) ?? (singleEquals && char === '=' ? '=' : undefined);
      if (punct === undefined) fail(column, unexpected(text, at));
      if (punct === '=') {
        tokens.push({ kind: 'punct', punct: '==', column, text: '=' });
        at += 1;
        continue;
      }
      tokens.push({ kind: 'punct', punct: punct as Punct, column, text: punct as string });
      at += (punct as string).length;
    }
  }
}

/** A dotted name from `start`: its segments, each a plain identifier, and where it ends. */
function readName(text: string, start: number, fail: Fail): [string[], number] {
  const path: string[] = [];
  let at = start;
  for (;;) {
    WORD.lastIndex = at;
    const segment = WORD.exec(text)?.[0];
    if (!segment) {
      const got = /[^\s.()[\],!=<>&|]*/y;
      got.lastIndex = at;
      const what = got.exec(text)?.[0] ?? '';
      fail(
        at + 1,
        what === ''
          ? 'expected a field name after "."'
          : `"${what}" is not a plain field name (a letter or _, then letters, digits or _)`,
      );
    }
    path.push(segment as string);
    at += (segment as string).length;
    if (path.length === 1 && (Object.hasOwn(KEYWORDS, segment as string) || segment === 'in') && text[at] === '.') {
      fail(start + 1, `"${segment}" is a keyword, not a field`);
    }
    if (text[at] !== '.') break;
    at += 1;
  }
  return [path, at];
}

/** A quoted string from `start` (its quote): its value and the index past its closing quote. */
function readString(text: string, start: number, fail: Fail): [string, number] {
  const quote = text[start];
  let value = '';
  let at = start + 1;
  for (;;) {
    if (at >= text.length) fail(start + 1, 'this string has no closing quote');
    const char = text[at] as string;
    if (char === quote) break;
    if (char !== '\\') {
      value += char;
      at += 1;
      continue;
    }
    const escaped = text[at + 1] ?? '';
    if (escaped === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) {
      value += String.fromCharCode(Number.parseInt(text.slice(at + 2, at + 6), 16));
      at += 6;
    } else if (Object.hasOwn(ESCAPES, escaped)) {
      value += ESCAPES[escaped];
      at += 2;
    } else fail(at + 1, `unknown escape "\\${escaped}" (use \\\\, \\', \\", \\n, \\t, \\uXXXX, …)`);
  }
  // No record holds such text, so a rule comparing with it could only be a mistake.
  const fault = textFault(value);
  if (fault) fail(start + 1, `this string ${fault}`);
  return [value, at + 1];
}

function unexpected(text: string, at: number): string {
  const char = String.fromCodePoint(text.codePointAt(at) as number);
  if (char === '=') return 'expected "==" (a single "=" is not an operator)';
  if (char === '&') return 'expected "&&"';
  if (char === '|') return 'expected "||"';
  return `unexpected character "${char}"`;
}
