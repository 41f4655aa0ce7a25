/**
 * How `q=` search ignores case, the same on every store: Unicode's lower case by the
 * root (language-neutral) rules, with the final sigma ς taken as σ. JavaScript's
 * toLowerCase follows those rules through ICU, and so does PostgreSQL's lower() under
 * its ICU collation "und-x-icu"; neither depends on the database's locale.
 *
 * Full case folding (ß as ss) is left out: it changes lengths, which substring search
 * over two stores cannot do alike.
 */

/** The search text as search compares it; also registered as a SQL function on SQLite. */
export function foldCase(text: string): string {
  return text.toLowerCase().replaceAll('ς', 'σ');
}

/** The name SQLite knows {@link foldCase} by. */
export const FOLD_CASE_FUNCTION = 'restock_fold_case';

/**
 * {@link foldCase} as a code point map, for a PostgreSQL without ICU: `single` pairs for
 * translate() (ASCII first, as the most frequent), `multiple` for the few code points
 * whose lower case is longer (İ), for replace(). Made on first use; the same for every
 * string, since folding one code point never depends on its neighbours (the final sigma
 * rule aside, which σ for ς undoes).
 */
export const foldTable = memoize(() => {
  let from = '';
  let to = '';
  const multiple: [string, string][] = [];
  for (let code = 0; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const char = String.fromCodePoint(code);
    const folded = foldCase(char);
    if (folded === char) continue;
    if ([...folded].length > 1) {
      multiple.push([char, folded]);
    } else {
      from += char;
      to += folded;
    }
  }
  return { from, to, multiple };
});

function memoize<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
