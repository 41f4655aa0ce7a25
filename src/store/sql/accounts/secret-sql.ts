/**
 * Account passwords, as hashes in `account_secrets` beside the records (never in a record's
 * `data`, so no read, page, search, filter or feed can reach them, and an export only when
 * asked: `restock export --password-hashes`). They are written in the record's own
 * transaction: an account and its password exist together or not at all.
 */
import type { SqlDialect } from '../dialect.js';
import { chunked, insertRows } from '../insert-rows.js';
import { type Program, statement } from '../program.js';

export function secretSql(dialect: SqlDialect, collection: string) {
  const named = <K extends string>(role: string, build: (param: (name: K) => string) => string) =>
    statement<K>(dialect.placeholder, build, `${collection}.secret.${role}`);
  const where = (p: (name: 'collection' | 'id') => string) =>
    `collection = ${p('collection')} AND record_id = ${p('id')}`;
  const getMany = named<'collection' | 'ids'>(
    'getMany',
    (p) =>
      'SELECT record_id AS id, hash FROM account_secrets ' +
      `WHERE collection = ${p('collection')} AND ${dialect.inList('record_id', p('ids'))}`,
  );
  const remove = named<'collection' | 'id'>('remove', (p) => `DELETE FROM account_secrets WHERE ${where(p)}`);
  const signOut = named<'collection' | 'id'>(
    'signOut',
    (p) =>
      `UPDATE refresh_families SET revoked = 1 WHERE family IN (SELECT family FROM refresh_tokens WHERE ${where(p)})`,
  );
  const head = 'INSERT INTO account_secrets (collection, record_id, hash)';
  const tail = ' ON CONFLICT (collection, record_id) DO UPDATE SET hash = excluded.hash';
  return {
    /**
     * Sets the hashes given for `written` (`hashes[i]` is `written[i]`'s, or none), a thousand
     * to a statement: a bulk create or an import may write many.
     */
    *keep(written: readonly { id: number }[], hashes: readonly (string | undefined)[] = []): Program<void> {
      const kept = written.flatMap(({ id }, i) => (hashes[i] === undefined ? [] : [{ id, hash: hashes[i] }]));
      for (const chunk of chunked(kept)) {
        yield insertRows(
          dialect,
          [head, tail],
          chunk,
          (s, param) => `${param(collection)}, ${param(s.id)}, ${param(s.hash)}`,
        );
      }
    },
    /**
     * Sets a new password's hash and revokes every refresh token family of the account, in
     * the change's transaction: whoever held a session under the old password must sign in
     * with the new one.
     */
    *change(id: number, hash: string): Program<void> {
      yield* this.keep([{ id }], [hash]);
      yield signOut({ collection, id });
    },
    /** The hashes of these ids (at most MAX_MANY, one statement), as rows of `id` and `hash`. */
    getMany: (ids: readonly number[]) => getMany({ collection, ids: dialect.intList(ids) }),
    *remove(id: number): Program<void> {
      yield remove({ collection, id });
    },
  };
}
