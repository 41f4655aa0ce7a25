/**
 * The SQL of one SQLite collection table, by role. The store prepares these, and so does
 * the benchmark's plain node:http baseline, so that both run exactly the same statements.
 */

export const COLUMNS = 'id, data, version, created_at AS createdAt, updated_at AS updatedAt';

/** The statements of the collection stored in `table` (a lower-case word, see resources.ts). */
export function collectionStatements(table: string) {
  const t = `"${table}"`;
  const remove = `DELETE FROM ${t} WHERE id = ?`;
  const versionIn = 'AND version IN (SELECT value FROM json_each(?))';
  return {
    get: `SELECT ${COLUMNS} FROM ${t} WHERE id = ?`,
    insert: `INSERT INTO ${t} (data, created_at, updated_at) VALUES (?, ?, ?) RETURNING ${COLUMNS}`,
    // An explicit id also moves AUTOINCREMENT's high-water mark past it.
    insertExact: `INSERT INTO ${t} (id, data, version, created_at, updated_at) VALUES (?, json(?), ?, ?, ?)`,
    // A merge's write: the fields as merged in the application (src/store/merge-patch.ts),
    // read and written in one transaction that holds the write lock.
    update: `UPDATE ${t} SET data = ?, version = version + 1, updated_at = ? WHERE id = ? RETURNING ${COLUMNS}`,
    remove: `${remove} RETURNING ${COLUMNS}`,
    removeIf: `${remove} ${versionIn} RETURNING ${COLUMNS}`,
  } as const;
}
