/**
 * The record editor as a form, for a collection declared by a JSON Schema (SCHEMAS): one
 * labelled input per top-level property of the schema the API documents for its create body
 * (`/openapi.json`), with the raw JSON one click away. The editor's textarea stays the
 * record's single source for everything else: the form reads its JSON in and writes the
 * object it builds back to it before a save, so Create and Save send what they would send
 * from the textarea. Plain DOM; values are only ever set as text or as input values. A file
 * field (`x-file`) is a file picker (./files.js): its files go beside the JSON, as a form.
 */

import { makeFileField } from './files.js';

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Fields the server owns: never an input, whatever a schema says. */
const SYSTEM_FIELDS = ['id', 'createdAt', 'updatedAt'];
/** `format`s with an input type of their own; any other string is a text input. */
const FORMAT_TYPES = { email: 'email', 'idn-email': 'email', uri: 'url', iri: 'url', url: 'url', date: 'date' };

let lastId = 0;
const nextId = () => `schema-field-${++lastId}`;

function element(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

// ---------------------------------------------------------------------------------------
// The schemas, from the OpenAPI document

/**
 * The record schema of each collection that has one, by name: the create body the OpenAPI
 * `document` gives for its create path (the `<Singular>Fields` component), with each
 * property's `$ref` followed. A collection without a schema (any JSON object, no
 * `properties`) has none. No document, or one of another shape, means no forms, not a
 * broken console.
 */
export function recordSchemas(document, collections = []) {
  const schemas = new Map();
  if (!isObject(document)) return schemas;
  for (const collection of collections) {
    try {
      const schema = recordSchema(document, collection);
      if (schema) schemas.set(collection.name, schema);
    } catch {
      // A document this console does not understand: that collection keeps the textarea.
    }
  }
  return schemas;
}

function recordSchema(document, collection) {
  const body = document.paths?.[collection.create]?.post?.requestBody?.content?.['application/json']?.schema;
  const component = `${collection.singular.charAt(0).toUpperCase()}${collection.singular.slice(1)}Fields`;
  // A create takes one record or an array of them: the object is the one to build a form for.
  const candidates = [body, ...(isObject(body) && Array.isArray(body.anyOf) ? body.anyOf : [])];
  candidates.push({ $ref: `#/components/schemas/${component}` });
  for (const candidate of candidates) {
    const schema = resolve(document, candidate);
    const type = schema?.type ?? 'object';
    if (type !== 'object' || !isObject(schema.properties) || Object.keys(schema.properties).length === 0) continue;
    const properties = Object.entries(schema.properties)
      .filter(([name]) => !SYSTEM_FIELDS.includes(name))
      .map(([name, property]) => [name, resolve(document, property)]);
    const required = Array.isArray(schema.required) ? schema.required : [];
    return { properties: properties.filter(([, property]) => isObject(property)), required };
  }
  return undefined;
}

/** `schema` with its `$ref` (a pointer into `document`) followed, its own other keywords kept. */
function resolve(document, schema) {
  for (let hops = 0; hops < 32 && isObject(schema) && typeof schema.$ref === 'string'; hops++) {
    const { $ref, ...rest } = schema;
    if (!$ref.startsWith('#/')) return rest;
    let target = document;
    for (const part of $ref.slice(2).split('/')) {
      let key;
      try {
        key = decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~');
      } catch {
        return rest;
      }
      target = isObject(target) || Array.isArray(target) ? target[key] : undefined;
    }
    if (!isObject(target)) return rest;
    schema = { ...target, ...rest };
  }
  return schema;
}

// ---------------------------------------------------------------------------------------
// The fields

/** A JSON Pointer's first token: the top-level field it points into. */
function firstToken(pointer) {
  const [, token] = pointer.split('/');
  return token?.replaceAll('~1', '/').replaceAll('~0', '~');
}

const pointerTo = (name) => `/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** The one type a property's schema allows besides null, or undefined for none or several. */
function singleType(schema) {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t) => t && t !== 'null');
  return types.length === 1 ? types[0] : undefined;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Which input a property gets for `value` (undefined: the field is absent): its schema's
 * shape decides, but a value the input could not show (a string where the schema says
 * number, a value outside the enum: records may predate the schema) gets the JSON input, so
 * nothing is lost or changed unasked.
 */
function kindOf(schema, value) {
  const choices = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
  if (choices) return value === undefined || choices.some((c) => same(c, value)) ? 'enum' : 'json';
  const type = singleType(schema);
  if (type === 'boolean' && (value === undefined || typeof value === 'boolean')) return 'boolean';
  if (type === 'integer' && (value === undefined || Number.isInteger(value))) return 'number';
  if (type === 'number' && (value === undefined || Number.isFinite(value))) return 'number';
  if (type === 'string' && (value === undefined || typeof value === 'string')) return 'string';
  return 'json';
}

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** An RFC 3339 date-time as datetime-local shows it (local time, to the second), or undefined. */
function localDateTime(value) {
  const date = new Date(value);
  if (!/^\d{4}-\d\d-\d\dT/.test(value) || Number.isNaN(date.getTime()) || date.getFullYear() > 9999) return undefined;
  const day = `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * One property's input: `read()` gives `{ value }`, `{}` for a field left out, or
 * `{ error }`. An input left as it was shown gives back the value it was shown with,
 * exactly (a date-time's own offset, a number's own digits, an empty string).
 */
function makeField(name, schema, value, required, base) {
  const id = nextId();
  if (isObject(schema['x-file'])) {
    const field = makeFileField({ name, schema, value, required, id, element, base });
    return { ...field, ...problemMarks(field.input, field.wrapper, field.problem) };
  }
  const kind = kindOf(schema, value);
  const type = singleType(schema);
  const help = [];
  // A required field's label ends in a red * (console.css), for the eye; assistive technology
  // hears aria-required instead.
  const label = element('label', { htmlFor: id, className: required ? 'required' : '' }, name);
  /** Beside the input: a checkbox's Unset. */
  const after = [];
  let input;
  let read;
  let state;

  if (kind === 'enum') {
    const choices = Array.isArray(schema.enum) ? schema.enum : [schema.const];
    input = element(
      'select',
      { id },
      element('option', { value: '', textContent: required ? 'Choose…' : '(not set)' }),
      ...choices.map((choice, i) =>
        element('option', {
          value: String(i),
          textContent: typeof choice === 'string' ? choice : JSON.stringify(choice),
        }),
      ),
    );
    if (value !== undefined) input.value = String(choices.findIndex((c) => same(c, value)));
    state = () => input.value;
    read = () => (input.value === '' ? {} : { value: choices[Number(input.value)] });
  } else if (kind === 'boolean') {
    input = element('input', { id, type: 'checkbox', checked: value === true, indeterminate: value === undefined });
    state = () => `${input.checked} ${input.indeterminate}`;
    read = () => (input.indeterminate ? {} : { value: input.checked });
    if (!required) {
      // A checkbox holds true or false; "not set" (the field left out) is its mixed state.
      const unset = element('button', { type: 'button', className: 'unset', textContent: 'Unset' });
      unset.setAttribute('aria-label', `Unset ${name}`);
      unset.hidden = value === undefined;
      unset.addEventListener('click', () => {
        Object.assign(input, { checked: false, indeterminate: true });
        unset.hidden = true;
        input.focus();
      });
      input.addEventListener('change', () => {
        unset.hidden = false;
      });
      after.push(unset);
      help.push('Unticked is false; a dash means not set (the field is left out).');
    } else if (value === undefined) {
      help.push('A dash means not set yet.');
    }
  } else if (kind === 'number') {
    input = element('input', { id, type: 'number', inputMode: type === 'integer' ? 'numeric' : 'decimal' });
    const multipleOf = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
    input.step = multipleOf ? String(multipleOf) : type === 'integer' ? '1' : 'any';
    if (typeof schema.minimum === 'number') input.min = String(schema.minimum);
    if (typeof schema.maximum === 'number') input.max = String(schema.maximum);
    if (value !== undefined) {
      input.value = String(value);
      // Digits the input does not take (1e+21): shown as JSON instead.
      if (input.value === '') return makeJsonField();
    }
    state = () => input.value;
    read = () => {
      if (input.validity.badInput) return { error: 'is not a number' };
      return input.value === '' ? {} : { value: Number(input.value) };
    };
    if (typeof schema['x-ref'] === 'string') help.push(`The id of a record in ${schema['x-ref']}.`);
  } else if (kind === 'string') {
    const format = typeof schema.format === 'string' ? schema.format : '';
    const local = format === 'date-time' && value !== undefined ? localDateTime(value) : undefined;
    const dateTime = format === 'date-time' && (value === undefined || local !== undefined);
    const shown = dateTime ? local : value;
    // A secret the server never returns (writeOnly, a password): typed out of sight, and
    // offered to the browser's password manager as a new one, never filled with a saved one.
    const secret = schema.writeOnly === true || format === 'password';
    const inputType = secret ? 'password' : dateTime ? 'datetime-local' : (FORMAT_TYPES[format] ?? 'text');
    input = element('input', { id, type: inputType, spellcheck: false });
    if (secret) input.autocomplete = 'new-password';
    if (dateTime) {
      input.step = '1';
      help.push('In your local time; sent in UTC.');
    }
    if (!dateTime && inputType !== 'date') {
      if (Number.isInteger(schema.maxLength)) input.maxLength = schema.maxLength;
      if (Number.isInteger(schema.minLength)) input.minLength = schema.minLength;
      if (typeof schema.pattern === 'string') input.pattern = schema.pattern;
    }
    if (format === 'email') input.autocomplete = 'off';
    if (shown !== undefined) {
      input.value = shown;
      // A value the typed input does not take (a date in another layout): shown as text.
      if (input.value === '' && shown !== '' && inputType !== 'text') {
        input.type = 'text';
        input.value = shown;
      }
    }
    state = () => input.value;
    read = () => {
      if (input.value === '') return {};
      if (!dateTime) return { value: input.value };
      const date = new Date(input.value);
      return Number.isNaN(date.getTime()) ? { error: 'is not a date and time' } : { value: date.toISOString() };
    };
  } else {
    return makeJsonField();
  }

  /** Objects, arrays and anything else: the field's value as JSON, checked before sending. */
  function makeJsonField() {
    const text = value === undefined ? '' : JSON.stringify(value, null, 2);
    input = element('textarea', {
      id,
      spellcheck: false,
      placeholder: type === 'array' ? '[ … ]' : type === 'object' ? '{ … }' : '',
      rows: Math.min(8, Math.max(2, text.split('\n').length)),
      value: text,
    });
    const shape = type ?? (schema.anyOf || schema.oneOf ? 'one of several shapes' : 'any value');
    help.unshift(`As JSON: ${type === 'array' ? 'an array' : type === 'object' ? 'an object' : shape}.`);
    state = () => input.value;
    read = () => {
      if (input.value.trim() === '') return {};
      try {
        return { value: JSON.parse(input.value) };
      } catch (error) {
        return { error: `is not valid JSON: ${error.message}` };
      }
    };
    return finish();
  }

  function finish() {
    if (typeof schema.description === 'string') help.unshift(schema.description);
    if (typeof schema.title === 'string' && schema.title !== name) help.unshift(`${schema.title}.`);
    const helpText = help.filter(Boolean).join(' ');
    const helpNode = element('p', { className: 'hint', id: `${id}-help`, textContent: helpText, hidden: !helpText });
    const problem = element('p', { className: 'field-problem', id: `${id}-problem`, hidden: true });
    input.setAttribute('aria-describedby', `${id}-help ${id}-problem`);
    if (required) input.setAttribute('aria-required', 'true');
    const wrapper =
      input.type === 'checkbox'
        ? element('div', { className: 'field check' }, input, label, ...after, helpNode, problem)
        : element('div', { className: 'field' }, label, input, helpNode, problem);
    wrapper.dataset.field = name;
    const shownAs = state();
    return {
      name,
      input,
      wrapper,
      /** `{ value }`, `{}` (left out) or `{ error }`; unchanged, exactly what was shown. */
      read: () => (state() === shownAs ? (value === undefined ? {} : { value }) : read()),
      ...problemMarks(input, wrapper, problem),
    };
  }

  return finish();
}

/** A field's problem, shown in `problem` beside `input` (the field's `wrapper` marked), and cleared. */
function problemMarks(input, wrapper, problem) {
  return {
    showProblem(text) {
      problem.append(problem.hasChildNodes() ? element('br') : '', ...text);
      problem.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      wrapper.classList.add('invalid');
    },
    clearProblem() {
      problem.replaceChildren();
      problem.hidden = true;
      input.removeAttribute('aria-invalid');
      wrapper.classList.remove('invalid');
    },
  };
}

// ---------------------------------------------------------------------------------------
// The editor

/**
 * Adds the form and its "Raw JSON" toggle to the editor `form`, around its `textarea`;
 * `format` is the Format JSON button (raw JSON only); `onProblem(problem)` shows a problem
 * as the editor shows the server's, `errors[]` with pointers included.
 */
export function createSchemaForm({ form, textarea, format, onProblem }) {
  const toggle = element('button', { type: 'button', className: 'raw-toggle', textContent: 'Raw JSON', hidden: true });
  toggle.setAttribute('aria-pressed', 'false');
  toggle.title = 'Edit the record as one JSON object';
  const legend = element('legend');
  const note = element('p', { className: 'hint' });
  const extrasNote = element('p', { className: 'hint extras', hidden: true });
  const list = element('div', { className: 'fields' });
  const fieldset = element('fieldset', { className: 'schema-fields', hidden: true }, legend, note, list, extrasNote);
  const bar = element('div', { className: 'editor-mode' }, toggle);
  form.prepend(bar, fieldset);
  const rawParts = [...textarea.labels, textarea];

  let schema;
  /** The user's choice, for the page's lifetime: the textarea even where a form could be. */
  let raw = false;
  let fields = [];
  /** The JSON the form was last built from: its key order, and the fields the schema does not name. */
  let loaded = {};
  let errors = [];
  /** The path of the record in the editor (`/product/7/`), for its files; undefined for a new one. */
  let base;

  const formShown = () => schema !== undefined && !raw;

  function layout() {
    toggle.hidden = schema === undefined;
    toggle.setAttribute('aria-pressed', String(raw));
    fieldset.hidden = !formShown();
    for (const part of rawParts) part.hidden = formShown();
    format.hidden = formShown();
  }

  /** The textarea's JSON object, or undefined after saying what is wrong with it. */
  function parseTextarea() {
    let value;
    try {
      value = JSON.parse(textarea.value);
    } catch (error) {
      onProblem({ title: 'Not valid JSON', detail: `${error.message}. The form needs a JSON object.` });
      return undefined;
    }
    if (!isObject(value)) {
      onProblem({ title: 'Not a JSON object', detail: 'The form needs a JSON object: { "name": "value", … }.' });
      return undefined;
    }
    return value;
  }

  function build(value) {
    loaded = value;
    const required = new Set(schema.required);
    fields = schema.properties.map(([name, property]) =>
      makeField(name, property, Object.hasOwn(value, name) ? value[name] : undefined, required.has(name), base),
    );
    list.replaceChildren(...fields.map((field) => field.wrapper));
    const named = new Set(fields.map((field) => field.name));
    const extras = Object.keys(value).filter((key) => !named.has(key));
    extrasNote.hidden = extras.length === 0;
    extrasNote.textContent = `Also in this record, not named by the schema and kept as they are: ${extras.join(', ')} (see Raw JSON).`;
    placeErrors();
  }

  /** The object the form holds, or undefined after marking the fields that cannot be read. */
  function read() {
    const values = new Map();
    const problems = [];
    for (const field of fields) {
      const result = field.read();
      if (result.error) problems.push({ pointer: pointerTo(field.name), message: result.error });
      else if ('value' in result) values.set(field.name, result.value);
    }
    if (problems.length > 0) {
      const count = problems.length === 1 ? 'A field' : `${problems.length} fields`;
      onProblem({ title: 'Not sent', detail: `${count} could not be read.`, errors: problems });
      fields.find((field) => field.input.getAttribute('aria-invalid') === 'true')?.input.focus();
      return undefined;
    }
    // In the order the JSON had, then the schema's: the same JSON back when nothing changed.
    const named = new Set(fields.map((field) => field.name));
    const keys = [...new Set([...Object.keys(loaded), ...fields.map((field) => field.name)])];
    return Object.fromEntries(
      keys.flatMap((key) => {
        if (!named.has(key)) return [[key, loaded[key]]];
        return values.has(key) ? [[key, values.get(key)]] : [];
      }),
    );
  }

  function placeErrors() {
    for (const field of fields) field.clearProblem();
    for (const error of errors) {
      if (typeof error?.pointer !== 'string') continue;
      const name = firstToken(error.pointer);
      const field = fields.find((f) => f.name === name);
      if (!field) continue;
      const rest = error.pointer.slice(pointerTo(name).length);
      const message = String(error.message ?? 'is not valid');
      field.showProblem(rest ? [element('code', { textContent: rest }), ` ${message}`] : [message]);
    }
  }

  toggle.addEventListener('click', () => {
    if (raw) {
      const value = parseTextarea();
      if (!value) return;
      raw = false;
      build(value);
    } else {
      const value = read();
      if (!value) return;
      textarea.value = JSON.stringify(value, null, 2);
      raw = true;
    }
    layout();
  });
  fieldset.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  return {
    /**
     * Shows `collection`'s form (if it has a schema and raw JSON is not chosen), built from
     * what the textarea holds now: after the editor got other content, or the schemas came;
     * `path` is the record's (for its files), undefined for a new record.
     */
    show(collection, path) {
      schema = collection?.schema;
      base = path;
      if (schema) legend.textContent = `Fields of the ${collection.singular}`;
      note.textContent = "From the collection's JSON Schema; * marks a required field.";
      if (formShown()) {
        let value;
        try {
          value = JSON.parse(textarea.value);
        } catch {
          // Not JSON (typed before the schemas came): left to the textarea, below.
        }
        if (isObject(value)) build(value);
        else raw = true;
      }
      layout();
    },
    /**
     * With the form shown, writes the object it holds to the textarea, for a save to send;
     * false (after marking the fields) if a field cannot be read.
     */
    write() {
      if (!formShown()) return true;
      const value = read();
      if (!value) return false;
      textarea.value = JSON.stringify(value, null, 2);
      return true;
    },
    /** The files picked in the form's file fields, as [field, File] pairs. */
    uploads() {
      return formShown() ? fields.flatMap((field) => field.files?.() ?? []) : [];
    },
    /** Shows each of a problem's `errors[]` beside the field its pointer names. */
    showErrors(list) {
      errors = Array.isArray(list) ? list : [];
      placeErrors();
    },
    clearErrors() {
      errors = [];
      placeErrors();
    },
    /** Focuses the editor: the form's first field, or the textarea. */
    focus() {
      if (formShown() && fields[0]) fields[0].input.focus();
      else textarea.focus();
    },
  };
}
