/**
 * A record rule (`x-rules` of a collection) as a tree: parsed once at start from its text
 * (./rule-syntax.ts), then evaluated per request against the caller, the record and the
 * body (src/records/rules/), or turned into a list's filter in the query itself. The text
 * never reaches SQL: only the tree's literals do, as parameters.
 */

/** A value a rule compares: JSON's scalars. */
export type RuleValue = string | number | boolean | null;

/** What a rule reads: `auth.role` (the caller), `body.role` (a write's body), `ownerId` (the record). */
export type RuleScope = 'auth' | 'body' | 'record';

export type Operand =
  | { readonly kind: 'literal'; readonly value: RuleValue }
  /** `['a', 'b']`: only as the right side of `in`. */
  | { readonly kind: 'list'; readonly items: readonly RuleValue[] }
  | { readonly kind: 'field'; readonly scope: RuleScope; readonly path: readonly string[] };

export type Comparison = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in';

export type RuleNode =
  | { readonly kind: 'const'; readonly value: boolean }
  | {
      readonly kind: 'compare';
      readonly op: Comparison;
      readonly left: Operand;
      readonly right: Operand;
    }
  | { readonly kind: 'and' | 'or'; readonly items: readonly RuleNode[] }
  | { readonly kind: 'not'; readonly item: RuleNode };

/** The operations a collection may give a rule. */
export const RULE_OPERATIONS = ['list', 'view', 'create', 'update', 'delete'] as const;
export type RuleOperation = (typeof RULE_OPERATIONS)[number];

/** A collection's rules: an operation without one is for API keys only. */
export type CollectionRules = Partial<Record<RuleOperation, RuleNode>>;

/** The caller's token claims (`auth.id`, `auth.role`, `auth.collection`, …), as a rule reads them. */
export type RuleAuth = Readonly<Record<string, unknown>>;
