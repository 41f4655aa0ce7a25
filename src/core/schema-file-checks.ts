/**
 * The slips of a schema folder that a schema compiler takes without a word, each made a
 * one-line error naming the file: a file whose name is one slip from `.json` (skipped
 * otherwise), JSON whose mistake is given by line and column rather than by offset, and
 * rules or `x-owner` naming a field the schema cannot have.
 */
import { editDistance } from './edit-distance.js';
import type { CollectionRules, Operand, RuleNode } from './rules/rule-tree.js';
import { SYSTEM_FIELDS } from './system-fields.js';

/**
 * Why a file of the folder that is not read (it does not end in `.json`) looks meant to
 * be: `notes.schema.jsn`, `notes.JSON`, `notes.schema`. Other files (README.md) are left alone.
 */
export function misnamedSchemaFile(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || name.endsWith('.json')) return undefined;
  const [stem, extension] = [name.slice(0, dot), name.slice(dot + 1)];
  if (extension === 'schema') return `is not read: name it ${name}.json`;
  if (extension.toLowerCase() === 'json' || editDistance(extension.toLowerCase(), 'json') <= 1) {
    return `is not read: only .json files are; name it ${stem}.json`;
  }
  return undefined;
}

/** `text` read as JSON; a mistake is thrown with its line and column, which an editor goes to. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const at = /at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message);
    if (!at) throw error;
    const before = text.slice(0, Number(at[1]));
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    throw new SyntaxError(message.replace(at[0], `at line ${line}, column ${column}`));
  }
}

/**
 * The top-level fields a record of `document` can have, when the schema says
 * (`additionalProperties: false`, no `patternProperties`); undefined when any name is allowed.
 */
function closedFields(document: Readonly<Record<string, unknown>>): ReadonlySet<string> | undefined {
  if (document.additionalProperties !== false || document.patternProperties !== undefined) return undefined;
  return new Set([...Object.keys(declaredFields(document)), ...SYSTEM_FIELDS]);
}

function declaredFields(document: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const properties = document.properties;
  return typeof properties === 'object' && properties !== null ? (properties as Record<string, unknown>) : {};
}

/** Why `owner` (`x-owner`) is no field of `document`: it must be one its `properties` declare. */
export function ownerMistake(document: Readonly<Record<string, unknown>>, owner: string): string | undefined {
  const fields = declaredFields(document);
  if (document.properties === undefined && closedFields(document) === undefined) return undefined;
  const [top = owner] = owner.split('.');
  return Object.hasOwn(fields, top) ? undefined : `x-owner: "${owner}" is not a field of the schema's properties`;
}

/** Why a rule of `rules` reads a field a record of the closed `document` cannot have. */
export function ruleFieldMistake(
  document: Readonly<Record<string, unknown>>,
  rules: CollectionRules,
): string | undefined {
  const fields = closedFields(document);
  if (!fields) return undefined;
  for (const [operation, rule] of Object.entries(rules)) {
    for (const operand of operandsOf(rule)) {
      if (operand.kind !== 'field' || operand.scope === 'auth') continue;
      const [top = ''] = operand.path;
      if (!fields.has(top)) {
        return `x-rules.${operation}: ${operand.path.join('.')} is not a field of this schema, which takes no others (additionalProperties: false)`;
      }
    }
  }
  return undefined;
}

function* operandsOf(node: RuleNode): Generator<Operand> {
  if (node.kind === 'compare') yield* [node.left, node.right];
  else if (node.kind === 'and' || node.kind === 'or') for (const item of node.items) yield* operandsOf(item);
  else if (node.kind === 'not') yield* operandsOf(node.item);
}

/**
 * The first `auth.*` a rule of `rules` reads that no token can carry: `claims` are restock's
 * own (`auth.id`, `auth.collection`, `auth.verified`) and those the account collections name (`x-auth.claims`).
 */
export function unknownClaim(rules: CollectionRules, claims: ReadonlySet<string>): string | undefined {
  for (const [operation, rule] of Object.entries(rules)) {
    for (const operand of operandsOf(rule)) {
      const [claim = ''] = operand.kind === 'field' && operand.scope === 'auth' ? operand.path : [];
      if (operand.kind !== 'field' || operand.scope !== 'auth' || claims.has(claim)) continue;
      const near = [...claims].find((known) => editDistance(claim, known) <= 2);
      const meant = near ? `; did you mean auth.${near}?` : '';
      return `x-rules.${operation}: auth.${claim} is no claim of a token (${[...claims].map((c) => `auth.${c}`).join(', ')})${meant}`;
    }
  }
  return undefined;
}
