/**
 * The console's batch panel: a JSON array of operations sent as one `POST /batch/`, which the
 * server runs in order in one transaction (all kept or none), and the answer shown as it
 * came. It starts with an example for the collection on screen: a create, and a read of the
 * record it made through a reference to its id (`$0.id`). A batch is a POST already, so the
 * method override switch leaves it alone.
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

  /** Offers the example for `shown` (the collection on screen), unless the textarea holds the user's own batch. */
  function offer(shown) {
    collection = shown;
    const untouched = textarea.value.trim() === '' || textarea.value === offered;
    if (untouched) fill();
  }

  function fill() {
    if (!collection) return;
    offered = JSON.stringify(exampleFor(collection), null, 2);
    textarea.value = offered;
    textarea.removeAttribute('aria-invalid');
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
function exampleFor(collection) {
  return [
    { method: 'POST', path: collection.create, body: exampleRecord(collection.schema) },
    { method: 'GET', path: collection.item.replace('{id}', '$0.id') },
  ];
}

/**
 * A record with a value for each field the collection's schema requires (./schema-form.js
 * reads it from the OpenAPI document): a start to edit, not a promise that it passes, since
 * a reference to another record or a unique value needs the user's own.
 */
function exampleRecord(schema) {
  if (!schema) return PLAIN_EXAMPLE;
  const record = {};
  for (const [name, property] of schema.properties) {
    if (schema.required.includes(name)) record[name] = exampleValue(property, name);
  }
  return Object.keys(record).length > 0 ? record : PLAIN_EXAMPLE;
}

function exampleValue(property, name) {
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  if ('default' in property) return property.default;
  switch (Array.isArray(property.type) ? property.type[0] : property.type) {
    case 'integer':
    case 'number':
      return typeof property.minimum === 'number' ? property.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      // A time-stamped address: unique fields are often the email, and a second send must not collide.
      return property.format === 'email' ? `batch-${Date.now()}@example.com` : `${name} made in a batch`;
  }
}
