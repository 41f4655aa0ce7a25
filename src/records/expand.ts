/**
 * `expand=userId,items.productId,userId.companyId`: the records a page's references name,
 * embedded in each record under `expand`, by the reference's name. One read per reference
 * per page (the ids of every record of the page together), two references deep at most.
 * The embedded records count against the page's byte budget like its own.
 */
import type { Collection, Reference } from '../core/collection.js';
import { heldIds, isScalar } from '../core/references.js';
import { MAX_MANY, type Records, type StoredRecord } from '../store/store.js';
import type { Page } from './list-page.js';
import { Refusal } from './refusal.js';
import { renderRecord } from './render.js';

/** How deep references may be followed: `userId.companyId` is two. */
export const MAX_EXPAND_DEPTH = 2;
/** The most references one `expand` may name. */
export const MAX_EXPANDS = 10;
/** The most distinct records one reference may embed in one page. */
export const MAX_EXPANDED_IDS = 10 * MAX_MANY;

/** A reference to embed, and the references of its records to embed in them. */
export interface Expansion {
  readonly reference: Reference;
  readonly nested: Expansion[];
}

/** What expanding needs: each collection's records. */
export interface ExpandSource {
  collection(of: Collection): Records;
}

/** Reads `expand` for `collection`; anything it cannot follow is a 400 naming the parameter. */
export function parseExpand(raw: string | undefined, collection: Collection): Expansion[] {
  if (raw === undefined || raw === '') return [];
  const names = raw.split(',').map((name) => name.trim());
  if (names.length > MAX_EXPANDS) throw invalid(`at most ${MAX_EXPANDS} references`);
  const roots: Expansion[] = [];
  for (const name of names) {
    let level = roots;
    let from = collection;
    let rest = name;
    for (let depth = 1; rest !== ''; depth++) {
      if (depth > MAX_EXPAND_DEPTH) throw invalid(`"${name}" follows more than ${MAX_EXPAND_DEPTH} references`);
      // The longest reference name that starts the rest: reference names hold dots themselves.
      const reference = [...from.references]
        .sort((a, b) => b.name.length - a.name.length)
        .find((r) => rest === r.name || rest.startsWith(`${r.name}.`));
      if (!reference) {
        const known = from.references.map((r) => r.name);
        throw invalid(
          `"${name}" is not a reference of ${from.plural}` +
            (known.length > 0 ? ` (its references: ${known.join(', ')})` : ''),
        );
      }
      let node = level.find((e) => e.reference === reference);
      if (!node) {
        node = { reference, nested: [] };
        level.push(node);
      }
      level = node.nested;
      from = reference.target;
      rest = rest.slice(reference.name.length + 1);
    }
  }
  return roots;
}

/** The `expand` member of each record of a page: its size in bytes, and its JSON text when asked for. */
export interface Expanded {
  readonly bytes: readonly number[];
  text(index: number): string;
}

/**
 * The `expand` members of `records`, reading each reference's records once. A record a
 * reference names that no longer exists is null. Sizes are known before any text is
 * built; embedded records' own expansions past `maxBytes` altogether are refused.
 */
export async function expand(
  records: readonly StoredRecord[],
  expansions: readonly Expansion[],
  source: ExpandSource,
  maxBytes: number,
): Promise<Expanded> {
  const fields = records.map((record) => JSON.parse(record.data) as unknown);
  const members = await Promise.all(
    expansions.map(async ({ reference, nested }) => {
      const held = fields.map((f) => heldIds(f, reference).map((h) => h.id));
      const ids = [...new Set(held.flat().filter((id) => id > 0))];
      if (ids.length > MAX_EXPANDED_IDS) {
        throw invalid(`${reference.name} names more than ${MAX_EXPANDED_IDS} records on this page: ask for fewer`);
      }
      const targets = await source.collection(reference.target).getMany(ids);
      const inner = nested.length > 0 ? await expand(targets, nested, source, maxBytes) : undefined;
      if (inner && inner.bytes.reduce((a, b) => a + b, 0) > maxBytes) throw tooLarge(maxBytes);
      const rendered = new Map(
        targets.map((target, i) => {
          const text = inner ? withExpand(renderRecord(target), inner.text(i)) : renderRecord(target);
          return [target.id, { text, bytes: Buffer.byteLength(text) }];
        }),
      );
      const name = JSON.stringify(reference.name);
      const scalar = isScalar(reference);
      return {
        bytes: held.map((list) => {
          const sizes = list.map((id) => rendered.get(id)?.bytes ?? 4);
          const value = scalar ? (sizes[0] ?? 4) : 2 + sizes.reduce((a, b) => a + b + 1, 0) - Math.min(1, sizes.length);
          return Buffer.byteLength(name) + 1 + value;
        }),
        text(index: number) {
          const list = held[index] ?? [];
          const one = (id: number) => rendered.get(id)?.text ?? 'null';
          const value = scalar ? (list[0] === undefined ? 'null' : one(list[0])) : `[${list.map(one).join(',')}]`;
          return `${name}:${value}`;
        },
      };
    }),
  );
  return {
    bytes: records.map((_, i) => 2 + members.reduce((sum, member) => sum + (member.bytes[i] ?? 0) + 1, 0) - 1),
    text: (index) => `{${members.map((member) => member.text(index)).join(',')}}`,
  };
}

/** A problem for an expansion that would take a response past `maxBytes`. */
export function tooLarge(maxBytes: number): Refusal {
  return invalid(`the records it embeds would pass the ${maxBytes} bytes a page may take: ask for fewer`);
}

/** A rendered record with its `expand` member added (it replaces a field of that name). */
export function withExpand(record: string, expand: string | undefined): string {
  return expand === undefined ? record : `${record.slice(0, -1)},"expand":${expand}}`;
}

/**
 * Embeds `expansions` in the records of `page`, ending it early (its next link then
 * continues) where they would take it past `maxBytes`.
 */
export async function expandPage(page: Page, expansions: readonly Expansion[], source: ExpandSource, maxBytes: number) {
  if (expansions.length === 0 || page.rows.length === 0) return;
  const expanded = await expand(page.rows, expansions, source, maxBytes);
  let bytes = 2;
  let kept = 0;
  for (const [i, record] of page.records.entries()) {
    const size = Buffer.byteLength(record) + EXPAND_MEMBER_BYTES + (expanded.bytes[i] ?? 0) + (i > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      if (i === 0) throw tooLarge(maxBytes);
      break;
    }
    bytes += size;
    kept++;
  }
  if (kept < page.rows.length) {
    page.records.length = kept;
    page.rows.length = kept;
    page.last = page.rows[kept - 1];
    page.more = true;
  }
  for (let i = 0; i < kept; i++) page.records[i] = withExpand(page.records[i] as string, expanded.text(i));
}

/** The bytes `,"expand":` adds to a record. */
const EXPAND_MEMBER_BYTES = 10;

function invalid(why: string): Refusal {
  return new Refusal('invalid-query', `The query parameter expand is invalid: ${why}.`, {
    errors: [{ pointer: '/expand', message: why }],
  });
}
