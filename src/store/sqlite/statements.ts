/**
 * The SQL of one SQLite collection table, by role. The store prepares these, and so does
 * the benchmark's plain node:http baseline, so that both run exactly the same statements.
 */

const COLUMNS = 'id, data, version, created_at AS createdAt, updated_at AS updatedAt';

/** The statements of the collection stored in `table` (a lower-case word, see resources.ts). */
export function collectionStatements(table: string) {
  const t = `"${table}"`;
  return {
    list: `SELECT ${COLUMNS} FROM ${t} WHERE id > ? ORDER BY id LIMIT ?`,
    get: `SELECT ${COLUMNS} FROM ${t} WHERE id = ?`,
    insert: `INSERT INTO ${t} (data, created_at, updated_at) VALUES (?, ?, ?) RETURNING ${COLUMNS}`,
    // An explicit id also moves AUTOINCREMENT's high-water mark past it.
    insertExact: `INSERT INTO ${t} (id, data, version, created_at, updated_at) VALUES (?, json(?), ?, ?, ?)`,
    // json_patch is RFC 7396 merge patch, applied by SQLite inside the UPDATE: no window in
    // which another writer's change to a different field could be lost.
    merge: `UPDATE ${t} SET data = json_patch(data, ?), version = version + 1, updated_at = ?
     WHERE id = ? RETURNING ${COLUMNS}`,
    remove: `DELETE FROM ${t} WHERE id = ? RETURNING ${COLUMNS}`,
  } as const;
}
