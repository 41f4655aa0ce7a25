/**
 * The SQL of one SQLite collection table, by role. The store prepares these, and so does
 * the benchmark's plain node:http baseline, so that both run exactly the same statements.
 */

export const COLUMNS = 'id, data, version, created_at AS createdAt, updated_at AS updatedAt';

/** The statements of the collection stored in `table` (a lower-case word, see resources.ts). */
export function collectionStatements(table: string) {
  const t = `"${table}"`;
  // json_patch is RFC 7396 merge patch, applied by SQLite inside the UPDATE: no window in
  // which another writer's change to a different field could be lost. The version check
  // of a conditional write is part of the same statement.
  const merge = `UPDATE ${t} SET data = json_patch(data, ?), version = version + 1, updated_at = ? WHERE id = ?`;
  const remove = `DELETE FROM ${t} WHERE id = ?`;
  const versionIn = 'AND version IN (SELECT value FROM json_each(?))';
  return {
    get: `SELECT ${COLUMNS} FROM ${t} WHERE id = ?`,
    insert: `INSERT INTO ${t} (data, created_at, updated_at) VALUES (?, ?, ?) RETURNING ${COLUMNS}`,
    // An explicit id also moves AUTOINCREMENT's high-water mark past it.
    insertExact: `INSERT INTO ${t} (id, data, version, created_at, updated_at) VALUES (?, json(?), ?, ?, ?)`,
    merge: `${merge} RETURNING ${COLUMNS}`,
    mergeIf: `${merge} ${versionIn} RETURNING ${COLUMNS}`,
    remove: `${remove} RETURNING ${COLUMNS}`,
    removeIf: `${remove} ${versionIn} RETURNING ${COLUMNS}`,
  } as const;
}
