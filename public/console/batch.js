/**
 * The console's batch panel: a JSON array of operations sent as one `POST /batch/`, which the
 * server runs in order in one transaction (all kept or none), and the answer shown as it
 * came. It starts with an example for the collection on screen: a create, and a read of the
 * record it made through a reference to its id (`$0.id`). The record created keeps the
 * collection's schema, and each reference it must hold names a record the caller can see
 * (the first one its list shows), so the example runs as shown. A batch is a POST already,
 * so the method override switch leaves it alone.
 */

/** What the example creates in a collection without a schema. */
const PLAIN_EXAMPLE = { name: 'made in a batch' };

/**
 * `call(method, path, options)` sends a request the console's way (logged, with the key or
 * the account's token); `describe(problem, status)` says a problem in one line; `onDone()`
 * runs after a batch that ran, since it may have changed the records on screen.
 */
export function createBatchPanel({ form, textarea, example, send, status, answer, call, describe, onDone }) {
  /** The example last put in the textarea: replaced by the next one unless the user edited it. */
  let offered = '';
  let collection;
  /** How many examples were begun: only the last one begun may fill the textarea. */
  let fills = 0;

  /** Offers the example for `shown` (the collection on screen), unless the textarea holds the user's own batch. */
  function offer(shown) {
    collection = shown;
    if (textarea.value.trim() === '' || textarea.value === offered) fill();
  }

  /**
   * Puts the example for the collection on screen in the textarea, once the records its
   * references name are read, unless the user typed in the meantime or another collection
   * took its place.
   */
  async function fill() {
    const shown = collection;
    if (!shown) return;
    const mine = ++fills;
    const before = textarea.value;
    // Busy while the references are read: what is in the textarea is about to change.
    form.setAttribute('aria-busy', 'true');
    let ids;
    try {
      ids = await referencedIds(shown);
    } finally {
      if (mine === fills) form.removeAttribute('aria-busy');
    }
    // A later example (another collection, a sign-in) or the user's own typing wins.
    if (mine !== fills || shown !== collection || textarea.value !== before) return;
    offered = JSON.stringify(exampleFor(shown, ids), null, 2);
    textarea.value = offered;
    textarea.removeAttribute('aria-invalid');
  }

  /** For each reference of `shown` (`userId`, `items.productId`): the id of the first record its target lists to this caller. */
  async function referencedIds(shown) {
    const ids = new Map();
    for (const { name, collection: target } of shown.references ?? []) {
      const list = `/${encodeURIComponent(target)}/?limit=1`;
      const result = await call('GET', list);
      const id = Array.isArray(result.data) ? result.data[0]?.id : undefined;
      if (Number.isSafeInteger(id)) ids.set(name, id);
    }
    return ids;
  }

  async function submit(event) {
    event.preventDefault();
    let operations;
    try {
      operations = JSON.parse(textarea.value);
    } catch (error) {
      return refuse(`Not valid JSON: ${error.message}`);
    }
    if (!Array.isArray(operations)) return refuse('A batch is a JSON array of operations: [{ "method", "path" }, …].');
    textarea.removeAttribute('aria-invalid');
    send.disabled = true;
    form.setAttribute('aria-busy', 'true');
    let result;
    try {
      result = await call('POST', '/batch/', { body: operations });
    } finally {
      send.disabled = false;
      form.removeAttribute('aria-busy');
    }
    status.classList.toggle('error', !result.ok);
    answer.hidden = result.data === undefined && result.problem === undefined;
    answer.textContent = JSON.stringify(result.ok ? result.data : result.problem, null, 2);
    if (!result.ok) {
      const pointer = result.problem?.errors?.[0]?.pointer;
      status.textContent = `${describe(result.problem, result.status)}${pointer ? ` (at ${pointer})` : ''}`;
      return;
    }
    const count = Array.isArray(result.data) ? result.data.length : 0;
    status.textContent = `${result.status}: ${count === 1 ? 'the operation' : `all ${count} operations`} ran, in one transaction.`;
    onDone();
  }

  function refuse(message) {
    status.classList.add('error');
    status.textContent = message;
    textarea.setAttribute('aria-invalid', 'true');
  }

  form.addEventListener('submit', submit);
  example.addEventListener('click', fill);
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) form.requestSubmit();
  });
  return { offer };
}

/** A create in `collection`, and a read of what it made, through a reference to its id. */
function exampleFor(collection, ids) {
  return [
    { method: 'POST', path: collection.create, body: exampleRecord(collection.schema, ids) },
    { method: 'GET', path: collection.item.replace('{id}', '$0.id') },
  ];
}

/**
 * A record with a value for each field the collection's schema requires (./schema-form.js
 * reads it from the OpenAPI document), nested ones and an array's fewest items included,
 * each value within its field's bounds; `ids` holds a record's id for each reference.
 */
function exampleRecord(schema, ids) {
  if (!schema) return PLAIN_EXAMPLE;
  const record = exampleObject(Object.fromEntries(schema.properties), schema.required, ids, '');
  return Object.keys(record).length > 0 ? record : PLAIN_EXAMPLE;
}

/**
 * The required fields, and each reference a record was found for: a create's body may leave
 * out the owner field (`x-owner`, set from the account that creates), but the schema requires
 * it, and an API key's create must send it.
 */
function exampleObject(properties, required, ids, prefix) {
  const record = {};
  const referenced = Object.keys(properties ?? {}).filter((name) => ids.has(`${prefix}${name}`));
  for (const name of new Set([...(Array.isArray(required) ? required : []), ...referenced])) {
    const property = properties?.[name];
    record[name] = exampleValue(
      property && typeof property === 'object' ? property : {},
      name,
      ids,
      `${prefix}${name}`,
    );
  }
  return record;
}

/** A value `property` takes; `path` is its reference's name (`items.productId`: an array's items add no step). */
function exampleValue(property, name, ids, path) {
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  if ('const' in property) return property.const;
  if ('default' in property) return property.default;
  if (ids.has(path)) return ids.get(path);
  switch (Array.isArray(property.type) ? property.type.find((type) => type !== 'null') : property.type) {
    case 'integer':
    case 'number':
      return numberIn(property);
    case 'boolean':
      return false;
    case 'array': {
      const count = Number.isInteger(property.minItems) ? Math.min(property.minItems, 10) : 0;
      const items = property.items && typeof property.items === 'object' ? property.items : {};
      return Array.from({ length: count }, () => exampleValue(items, name, ids, path));
    }
    case 'object':
      return exampleObject(property.properties, property.required, ids, `${path}.`);
    default:
      return textIn(property, name);
  }
}

function numberIn(property) {
  if (typeof property.minimum === 'number') return property.minimum;
  if (typeof property.exclusiveMinimum === 'number') return Math.floor(property.exclusiveMinimum) + 1;
  return typeof property.maximum === 'number' ? Math.min(1, property.maximum) : 1;
}

function textIn(property, name) {
  const stamp = Date.now();
  // Time-stamped where it could be unique (an email often is): a second send must not collide.
  if (property.format === 'email' || property.format === 'idn-email') return `batch-${stamp}@example.com`;
  if (property.format === 'date-time') return new Date(stamp).toISOString();
  if (property.format === 'date') return new Date(stamp).toISOString().slice(0, 10);
  if (property.format === 'uri' || property.format === 'url') return `https://example.com/${stamp}`;
  let text = `${name} made in a batch`;
  if (Number.isInteger(property.minLength)) text = text.padEnd(property.minLength, '.');
  return Number.isInteger(property.maxLength) ? text.slice(0, property.maxLength) : text;
}
