/**
 * What a caller may do with a collection's records, by its rules (`x-rules`): the checks
 * every route runs, in one place, so that a list, a read, a write, an expansion and a feed
 * all decide alike. A service's API key passes every rule (its scope, a read key's reads
 * only, is checked before, by the HTTP layer); an account, or no one, gets what the rules
 * say. An operation without a rule is for keys only: {@link RecordAccess.policy} says so,
 * and the HTTP layer refuses it before any of this runs.
 */
import { withArticle } from '../../core/articles.js';
import type { Collection } from '../../core/collection.js';
import type { RuleAuth, RuleOperation } from '../../core/rules/rule-tree.js';
import { systemFieldsOf } from '../../core/system-fields.js';
import type { ListQuery, StoredRecord, WriteConditions } from '../../store/store.js';
import { Refusal } from '../refusal.js';
import { ruleHolds } from './filter-holds.js';
import { listRuleFilter, withListRule } from './list-rule.js';

/** Where the collection has rules, whether its rule decides an operation for a caller without a key (`apply`) or a key is needed (`keys`); nothing where it has none. */
export type RulePolicy = { readonly rules?: 'apply' | 'keys' };

/** Who is asking: a service with an API key, or a person (signed in, or not: `auth` null). */
export type Caller = { readonly kind: 'key'; readonly scope: 'read' | 'write' } | { readonly auth: RuleAuth | null };

type Fields = Record<string, unknown>;

export class RecordAccess {
  /** Whether the collection has any rule: computed once, asked on every request. */
  readonly #hasRules: boolean;

  constructor(readonly collection: Pick<Collection, 'singular' | 'rules' | 'owner'>) {
    this.#hasRules = Object.keys(collection.rules).length > 0;
  }

  /** The rule `caller` is held to for `operation`; undefined when nothing is checked (a key, or no rules at all). */
  #rule(caller: Caller, operation: RuleOperation) {
    if ('kind' in caller) return undefined;
    return this.collection.rules[operation];
  }

  /**
   * Who the HTTP layer lets through to `operation` before anything is read (its access
   * plugin asks this): where the collection has rules, a caller without a key when its rule
   * covers the operation (`apply`: the rule is then checked here), else keys only (`keys`);
   * nothing where it has none (keys and PUBLIC_READS alone decide).
   */
  policy(operation: RuleOperation): RulePolicy {
    if (!this.#hasRules) return {};
    return { rules: this.collection.rules[operation] ? 'apply' : 'keys' };
  }

  /** Whether `caller` is held to rules here at all. */
  ruled(caller: Caller): caller is { readonly auth: RuleAuth | null } {
    return this.#hasRules && !('kind' in caller);
  }

  /**
   * `query` narrowed to the records `caller` may list, or undefined when it may list none:
   * the rule becomes conditions of the query itself, so pages stay keyset and counts count
   * only what the caller sees.
   */
  narrow(caller: Caller, query: ListQuery): ListQuery | undefined {
    if (!this.ruled(caller)) return query;
    const rule = this.#rule(caller, 'list');
    const filter = rule ? listRuleFilter(rule, caller.auth) : false;
    if (filter === false) return undefined;
    return filter === true ? query : withListRule(query, filter);
  }

  /**
   * Whether `caller` may see `record` (its fields parsed as `fields`, when already parsed):
   * by the `view` rule; without one, only a key may, where the collection has rules.
   */
  canView(caller: Caller, record: StoredRecord, fields?: Fields): boolean {
    if (!this.ruled(caller)) return true;
    const rule = this.#rule(caller, 'view');
    if (!rule) return false;
    return ruleHolds(rule, {
      auth: authOf(caller),
      record: { ...(fields ?? parse(record.data)), ...systemFieldsOf(record) },
    });
  }

  /**
   * Readies a create's fields for `caller`: the owner field set from its account, then the
   * `create` rule checked against them; a refusal is a 403.
   */
  create(caller: Caller, fields: Fields): Fields {
    if ('kind' in caller) return fields;
    const { owner } = this.collection;
    const auth = caller.auth;
    const ready = owner !== undefined && auth?.id != null ? { ...fields, [owner]: auth.id } : fields;
    const rule = this.#rule(caller, 'create');
    if (rule && !ruleHolds(rule, { auth, body: ready })) throw this.#forbidden('create');
    return ready;
  }

  /**
   * The checks a change or delete runs on the record as it is, under the write's lock, as
   * its store conditions: a record the caller may not view is, to the write, not there
   * (`visible`), so it answers exactly as a missing id does, 404 or, under `If-Match`, 412;
   * one it may view but not change is forbidden (403), whatever its `If-Match`, since the
   * caller may not do this at all. `body` is a change's patch; an account may not change
   * the owner field. Nothing for a key, or where the collection has no rules.
   */
  guard(caller: Caller, operation: 'update' | 'delete', body?: Fields): Pick<WriteConditions, 'visible' | 'allow'> {
    if (!this.ruled(caller)) return {};
    const { owner } = this.collection;
    // The record's fields, parsed once for both checks.
    let parsed: { current: StoredRecord; record: Fields } | undefined;
    const recordOf = (current: StoredRecord) => {
      if (parsed?.current !== current)
        parsed = { current, record: { ...parse(current.data), ...systemFieldsOf(current) } };
      return parsed.record;
    };
    return {
      visible: (current) => this.canView(caller, current, recordOf(current)),
      allow: (current) => {
        if (body && owner !== undefined && Object.hasOwn(body, owner)) {
          throw new Refusal('forbidden', `No account may change the ${owner} of a ${this.collection.singular}.`);
        }
        const rule = this.#rule(caller, operation);
        if (rule && !ruleHolds(rule, { auth: caller.auth, record: recordOf(current), ...(body && { body }) })) {
          throw this.#forbidden(operation);
        }
      },
    };
  }

  #forbidden(operation: RuleOperation): Refusal {
    const what =
      operation === 'create' ? `create ${withArticle(this.collection.singular)}` : `${operation} this record`;
    return new Refusal('forbidden', `The rules of this collection do not let this caller ${what}.`);
  }
}

/** The problem for a record that does not exist, or that the caller may not see: the two are one answer. */
export function notFound(singular: string, id: string | number): Refusal {
  return new Refusal('not-found', `There is no ${singular} with id ${JSON.stringify(String(id))}.`);
}

function authOf(caller: Caller): RuleAuth | null {
  return 'kind' in caller ? null : caller.auth;
}

function parse(data: string): Fields {
  return JSON.parse(data) as Fields;
}
