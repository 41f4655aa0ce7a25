/**
 * A batch as sent (`[{ method, path, body?, ifMatch? }, …]`), read into operations on the
 * catalog's collections, every one checked before any runs: its method and path, its body's
 * shape, and each reference to an earlier result (./batch-references.ts).
 */

import type { Catalog } from '../../core/catalog.js';
import { type Collection, SYSTEM_FIELDS } from '../../core/collection.js';
import { escapePointer } from '../../core/json-pointer.js';
import { recordIdOf } from '../../core/record-id.js';
import type { RuleOperation } from '../../core/rules/rule-tree.js';
import type { RecordKey } from '../../store/store.js';
import { type FieldError, Refusal } from '../refusal.js';
import { badReference, type ResultReference, referenceIn, referencesIn } from './batch-references.js';

/** What an operation does, as the store runs it. */
export type BatchAction = 'create' | 'merge' | 'remove' | 'read';

export interface BatchOperation {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly collection: Collection;
  readonly action: BatchAction;
  /** The rule the same request alone is held to: the collection's rules' policy on it authorizes the caller. */
  readonly rule: RuleOperation;
  /** The record an item path names: its id, or the earlier result that gives it. */
  readonly id?: number | ResultReference;
  /** The body as sent, references still in it. */
  readonly body?: Record<string, unknown>;
  /** An ETag the record must still have (If-Match). */
  readonly ifMatch?: string;
}

const RULE_OF: Record<BatchAction, RuleOperation> = {
  create: 'create',
  merge: 'update',
  remove: 'delete',
  read: 'view',
};

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const KEYS = new Set(['method', 'path', 'body', 'ifMatch']);
const PATH = /^\/([A-Za-z0-9_-]+)(?:\/([^/?#]+))?\/?$/;

/** Reads `body` as a batch of at most `maxOperations`; anything that cannot run is refused, naming where. */
export function batchOperations(body: unknown, catalog: Catalog, maxOperations: number): BatchOperation[] {
  if (!Array.isArray(body) || body.length === 0) {
    throw invalid(
      '',
      'The batch must be a JSON array of at least one operation; nothing ran.',
      'is not an array of operations',
    );
  }
  if (body.length > maxOperations) {
    throw new Refusal(
      'too-many-operations',
      `The batch carries ${body.length} operations, more than the ${maxOperations} one batch may; nothing ran.`,
    );
  }
  const operations = body.map((sent: unknown, index) => operationOf(sent, index, catalog));
  for (const [index, operation] of operations.entries()) checkReferences(operation, index, operations);
  return operations;
}

/**
 * The records `operations` change (merges and deletes) whose paths name their ids, each
 * once: what the store locks before the batch's first step (`BatchPlan.changes`). A path
 * that names an earlier result is left out: its id is known only once that result is.
 */
export function changedRecords(operations: readonly BatchOperation[]): RecordKey[] {
  const keys = new Map<string, RecordKey>();
  for (const { action, collection, id } of operations) {
    if ((action === 'merge' || action === 'remove') && typeof id === 'number') {
      keys.set(`${collection.plural}/${id}`, { collection: collection.plural, id });
    }
  }
  return [...keys.values()];
}

function operationOf(sent: unknown, index: number, catalog: Catalog): BatchOperation {
  const at = `/${index}`;
  if (sent === null || typeof sent !== 'object' || Array.isArray(sent)) {
    throw invalid(at, `Operation ${index} is not an object; nothing ran.`, 'is not an object');
  }
  const fields = sent as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !KEYS.has(key));
  if (unknown !== undefined) {
    throw invalid(
      `${at}/${escapePointer(unknown)}`,
      `Operation ${index} has a member "${unknown}" batches do not take; nothing ran.`,
      'is not method, path, body or ifMatch',
    );
  }
  const method = typeof fields.method === 'string' ? fields.method.toUpperCase() : '';
  if (!METHODS.has(method)) {
    throw invalid(
      `${at}/method`,
      `Operation ${index} needs a method: GET, POST, PUT, PATCH or DELETE; nothing ran.`,
      'is not GET, POST, PUT, PATCH or DELETE',
    );
  }
  const path = typeof fields.path === 'string' ? fields.path : '';
  const match = PATH.exec(path);
  const name = match?.[1] ?? '';
  const collection = catalog.byPath(name);
  if (!match || !collection) {
    throw invalid(
      `${at}/path`,
      `Operation ${index}'s path "${path}" names no collection's record or create path; nothing ran.`,
      'is not a path of a collection',
    );
  }
  const item = match[2];
  const action = actionOf(method, item !== undefined);
  if (!action) {
    const allowed =
      item === undefined ? 'POST (a list is read on its own, not in a batch)' : 'GET, PUT, PATCH or DELETE';
    throw new Refusal(
      'method-not-allowed',
      `Operation ${index}: ${method} ${path} is not an operation a batch runs; its path takes ${allowed}. Nothing ran.`,
      {
        errors: [{ pointer: `${at}/method`, message: `is not one of ${allowed}` }],
      },
    );
  }
  const id = item === undefined ? undefined : idOf(item, `${at}/path`, index);
  const body = bodyOf(fields.body, action, at, index);
  const ifMatch = fields.ifMatch;
  if (ifMatch !== undefined && (typeof ifMatch !== 'string' || action === 'create' || action === 'read')) {
    throw invalid(
      `${at}/ifMatch`,
      `Operation ${index}'s ifMatch must be an ETag (text) on a change or delete; nothing ran.`,
      'is not an ETag of a change or delete',
    );
  }
  return {
    method: method as BatchOperation['method'],
    rule: RULE_OF[action],
    path,
    collection,
    action,
    ...(id !== undefined && { id }),
    ...(body !== undefined && { body }),
    ...(typeof ifMatch === 'string' && { ifMatch }),
  };
}

function actionOf(method: string, item: boolean): BatchAction | undefined {
  if (!item) return method === 'POST' ? 'create' : undefined;
  if (method === 'GET') return 'read';
  if (method === 'PUT' || method === 'PATCH') return 'merge';
  if (method === 'DELETE') return 'remove';
  return undefined;
}

/** A path's id: a positive integer, or a reference; anything else names no record, as alone (404). */
function idOf(segment: string, pointer: string, index: number): number | ResultReference {
  const reference = referenceIn(decodedOrAsIs(segment));
  if (reference) return reference;
  const id = recordIdOf(segment);
  if (id === undefined) {
    throw new Refusal('not-found', `Operation ${index}: no record has the id "${segment}"; nothing ran.`, {
      errors: [{ pointer, message: 'names no record' }],
    });
  }
  return id;
}

/** A path segment with its percent escapes decoded; one that does not decode stays as sent (and names no record). */
function decodedOrAsIs(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function bodyOf(body: unknown, action: BatchAction, at: string, index: number): Record<string, unknown> | undefined {
  const wanted = action === 'create' || action === 'merge';
  if (!wanted) {
    if (body === undefined) return undefined;
    throw invalid(
      `${at}/body`,
      `Operation ${index} is a ${action === 'read' ? 'read' : 'delete'}, which takes no body; nothing ran.`,
      'is not taken here',
    );
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const why = Array.isArray(body) ? 'is an array: a batch creates one record per operation' : 'is not a JSON object';
    throw invalid(`${at}/body`, `Operation ${index}'s body ${why}; nothing ran.`, why);
  }
  return body as Record<string, unknown>;
}

/** Refuses a reference to an operation that does not run before `index`'s, or to a field its record cannot have. */
function checkReferences(operation: BatchOperation, index: number, all: readonly BatchOperation[]): void {
  const found = referencesIn(operation.body).map(({ reference, pointer }) => ({
    reference,
    pointer: `/${index}/body${pointer}`,
  }));
  if (typeof operation.id === 'object') found.push({ reference: operation.id, pointer: `/${index}/path` });
  for (const { reference, pointer } of found) {
    const target = all[reference.index];
    if (reference.index >= index || !target) {
      throw badReference(reference, pointer, `names operation ${reference.index}, which does not run before this one`);
    }
    if (!mayHave(target, reference.field[0] as string)) {
      throw badReference(reference, pointer, `names a field operation ${reference.index}'s record does not have`);
    }
  }
}

/** Whether `target`'s record may have `field`: a field every record has, one sent, or one its schema declares. */
function mayHave(target: BatchOperation, field: string): boolean {
  if ((SYSTEM_FIELDS as readonly string[]).includes(field)) return true;
  if (target.action === 'create' && target.body && Object.hasOwn(target.body, field)) return true;
  const document = target.collection.schema?.document;
  const properties = document?.properties;
  // A schema that takes fields it does not name (or none at all) says nothing before the batch runs.
  if (!properties || document.additionalProperties !== false) return true;
  return Object.hasOwn(properties, field);
}

function invalid(pointer: string, detail: string, message: string): Refusal {
  const errors: FieldError[] = [{ pointer, message }];
  return new Refusal('invalid-batch', detail, { errors });
}
