/**
 * A webhook's filter, read for each collection it follows as that collection's list reads
 * `?filter=`: the same grammar, the same names (a closed schema's fields, never a password),
 * and so the same evaluator decides which changes are sent.
 */
import type { Collection } from '../../core/collection.js';
import { type ParsedFilter, parseFilter } from '../list-filter.js';
import { queryFieldsOf } from '../query-fields.js';

/** `text` read for `collection`; undefined for no filter. A mistake throws the list's 400 refusal. */
export function webhookFilterOf(
  collection: Collection,
  text: string | null,
  maxFieldNameLength: number,
): ParsedFilter | undefined {
  if (text === null) return undefined;
  return parseFilter(text, { maxLength: maxFieldNameLength, fields: queryFieldsOf(collection) });
}
