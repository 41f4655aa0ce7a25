/**
 * What `expand=` may embed for a caller: only records it could read on their own, by their
 * collection's `view` rule. A record it may not view is embedded as null, as a missing
 * one is, so an expansion tells nothing a read by id would not.
 */
import type { Collection } from '../../core/collection.js';
import type { ExpandSource } from '../expand.js';
import type { Caller, RecordAccess } from './record-access.js';

export function viewableSource(
  source: ExpandSource,
  caller: Caller,
  accessOf: (collection: Collection) => RecordAccess | undefined,
): ExpandSource {
  return {
    collection(of) {
      const records = source.collection(of);
      const access = accessOf(of);
      if (!access?.ruled(caller)) return records;
      return {
        ...records,
        getMany: async (ids) => (await records.getMany(ids)).filter((record) => access.canView(caller, record)),
      };
    },
  };
}
