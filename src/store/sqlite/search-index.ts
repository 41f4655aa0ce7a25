/**
 * The index `q=` search reads on SQLite: per collection, an FTS5 table with the trigram
 * tokenizer over the text of each record's strings, folded as search folds them, kept by
 * triggers inside the transaction of every write. A search then reads only the records
 * holding every trigram of its needle, and checks those exactly (search in sqlite-dialect.ts).
 *
 * The triggers call restock_search_text, which restock's connections register: a write from
 * a connection without it (the sqlite3 shell) fails, rather than leave the index stale.
 */
import { foldCase } from '../sql/case-fold.js';
import { searchIndexName } from '../sql/dialect.js';
import { type Program, sql } from '../sql/program.js';

/** The events whose triggers keep the index. */
const TRIGGERS = ['insert', 'update', 'delete'] as const;

/** The name SQLite knows {@link searchText} by. */
export const SEARCH_TEXT_FUNCTION = 'restock_search_text';

/**
 * What stands in the index for a record whose text would cost too much to index: one
 * trigram, which every indexed search asks for as well as its needle's, so that such a
 * record is always among the records a search checks. A record's own text may hold it too,
 * which only makes that record checked as well.
 */
export const UNINDEXED_MARK = '\u0001\u0001\u0001';

/**
 * How much text one record may put in the index. FTS5's cost grows with the distinct
 * trigrams a row holds, and faster than they do: 16 KB of random text took 23 ms here and
 * 1 MB of it 5.5 s, all of it on the event loop and under SQLite's one write lock, while 1 MB
 * of prose (a few thousand distinct trigrams) took 25 ms. Past either bound a record is
 * searched by reading it, which costs a search a few milliseconds a megabyte instead.
 */
export const MAX_INDEXED_TEXT = 65_536;
export const MAX_INDEXED_TRIGRAMS = 8_192;

/** The strings of a record (its fields' JSON text), folded, one a line: what the index holds; or the mark. */
export function searchText(data: string): string {
  const strings: string[] = [];
  let length = 0;
  const visit = (value: unknown): boolean => {
    if (typeof value === 'string') {
      // Folding never shortens a string: one past the bound is not folded at all.
      if (length + value.length > MAX_INDEXED_TEXT) return false;
      const folded = foldCase(value);
      strings.push(folded);
      length += folded.length + 1;
      return length <= MAX_INDEXED_TEXT;
    }
    if (value === null || typeof value !== 'object') return true;
    for (const child of Object.values(value)) if (!visit(child)) return false;
    return true;
  };
  if (!visit(JSON.parse(data))) return UNINDEXED_MARK;
  const text = strings.join('\n');
  return hasMoreTrigrams(text, MAX_INDEXED_TRIGRAMS) ? UNINDEXED_MARK : text;
}

/** Whether `text` holds more than `most` distinct trigrams (of UTF-16 units); stops counting there. */
function hasMoreTrigrams(text: string, most: number): boolean {
  if (text.length - 2 <= most) return false;
  const seen = new Set<number>();
  for (let at = 0; at + 3 <= text.length; at++) {
    // Three 16-bit units as one exact number (48 bits), cheaper to hash than a string.
    seen.add(text.charCodeAt(at) * 2 ** 32 + text.charCodeAt(at + 1) * 2 ** 16 + text.charCodeAt(at + 2));
    if (seen.size > most) return true;
  }
  return false;
}

/** Makes the search index of `table` and its triggers when missing, filled from the records already there. */
export function* syncSearchIndex(table: string): Program<void> {
  const index = `"${searchIndexName(table)}"`;
  const exists = yield sql(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '${searchIndexName(table)}'`);
  if (exists.rows.length === 0) {
    // Contentless: the index holds trigrams only, not a second copy of the text. A row is
    // taken out with FTS5's 'delete' command and its text made again from the record
    // (contentless_delete's tombstones grew the cost of each delete with the deletes before
    // it). detail=none: rowids only, no positions, a quarter cheaper to write; a search asks
    // for its needle's trigrams each on its own, and checks the records found exactly.
    yield sql(
      `CREATE VIRTUAL TABLE ${index} USING fts5(text, tokenize = 'trigram case_sensitive 1', content = '', ` +
        'detail = none, columnsize = 0)',
    );
    yield sql(`INSERT INTO ${index} (rowid, text) SELECT id, ${SEARCH_TEXT_FUNCTION}(data) FROM "${table}"`);
  }
  const add = `INSERT INTO ${index} (rowid, text) VALUES (new.id, ${SEARCH_TEXT_FUNCTION}(new.data));`;
  const drop = `INSERT INTO ${index} (${index}, rowid, text) VALUES ('delete', old.id, ${SEARCH_TEXT_FUNCTION}(old.data));`;
  const trigger = (event: string) => `"${searchIndexName(table)}_${event}"`;
  yield sql(`CREATE TRIGGER IF NOT EXISTS ${trigger('insert')} AFTER INSERT ON "${table}" BEGIN ${add} END`);
  // Only when the strings changed: a merge of numbers (a price, a stock) leaves the index be.
  yield sql(
    `CREATE TRIGGER IF NOT EXISTS ${trigger('update')} AFTER UPDATE OF data ON "${table}" ` +
      `WHEN ${SEARCH_TEXT_FUNCTION}(old.data) IS NOT ${SEARCH_TEXT_FUNCTION}(new.data) BEGIN ${drop} ${add} END`,
  );
  yield sql(`CREATE TRIGGER IF NOT EXISTS ${trigger('delete')} AFTER DELETE ON "${table}" BEGIN ${drop} END`);
}

/** Drops the search index of `table` and its triggers, where there are any (SEARCH_INDEX=false). */
export function* dropSearchIndex(table: string): Program<void> {
  for (const event of TRIGGERS) yield sql(`DROP TRIGGER IF EXISTS "${searchIndexName(table)}_${event}"`);
  yield sql(`DROP TABLE IF EXISTS "${searchIndexName(table)}"`);
}

/**
 * The FTS5 query that finds the records holding `needle`: its trigrams, each on its own
 * (detail=none keeps no positions, so no phrase), every third one and the last, which
 * between them cover every character of the needle; or the records too large to index.
 */
export function trigramQuery(needle: string): string {
  const chars = [...needle];
  const starts = new Set<number>();
  for (let at = 0; at + 3 <= chars.length; at += 3) starts.add(at);
  starts.add(chars.length - 3);
  const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;
  const trigrams = [...starts].map((at) => quoted(chars.slice(at, at + 3).join('')));
  return `(${trigrams.join(' AND ')}) OR ${quoted(UNINDEXED_MARK)}`;
}
