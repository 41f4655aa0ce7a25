/**
 * The restock console: lists, creates, edits and deletes records through the same HTTP API
 * every client uses, and can send its changes the way a client limited to GET and POST
 * must. Plain DOM, no framework; record values are only ever set as text, never as HTML.
 */

import { createAccounts } from './auth.js';
import { createBatchPanel } from './batch.js';
import { filePreviews, filesIn, forgetFiles, useFileFetcher, writeBody } from './files.js';
import { createSchemaForm, recordSchemas } from './schema-form.js';
import { createWebhooksPanel } from './webhooks.js';

const OVERRIDE_HEADER = 'HTTP-X-HTTP-METHOD';
/** The methods the switch sends through POST. */
const TUNNELLED = new Set(['PUT', 'PATCH', 'DELETE']);
/** Fields the server owns: shown beside the editor, never in it. */
const SYSTEM_FIELDS = ['id', 'createdAt', 'updatedAt'];
/** How many of the records' own fields get a column (the table scrolls sideways past the panel). */
const FIELD_COLUMNS = 8;
const LOG_LENGTH = 30;

const $ = (id) => document.getElementById(id);
const ui = {
  tunnel: $('tunnel'),
  apiKey: $('api-key'),
  collections: $('collections'),
  listTitle: $('list-title'),
  query: $('query'),
  q: $('q'),
  sort: $('sort'),
  sortFields: $('sort-fields'),
  limit: $('limit'),
  listStatus: $('list-status'),
  table: $('records'),
  tableWrap: $('records').parentElement,
  signInHint: $('sign-in-hint'),
  first: $('first'),
  previous: $('previous'),
  next: $('next'),
  editorTitle: $('editor-title'),
  form: $('record-form'),
  json: $('record-json'),
  errors: $('record-errors'),
  save: $('save'),
  format: $('format'),
  newRecord: $('new'),
  delete: $('delete'),
  meta: $('record-meta'),
  log: $('request-log'),
  busy: $('busy'),
  live: $('live'),
};

/** The editor's form, for a collection with a JSON Schema; the textarea stays for the rest. */
const schemaForm = createSchemaForm({
  form: ui.form,
  textarea: ui.json,
  format: ui.format,
  onProblem: (problem) => {
    clearErrors();
    showErrors(problem);
  },
});

/** The account signed in, whose token every request and the change feed carry (./auth.js). */
const accounts = createAccounts({
  panel: $('account'),
  forms: $('sign-in-forms'),
  who: $('who'),
  resend: $('resend'),
  signOutButton: $('sign-out'),
  status: $('account-status'),
  call,
  describe,
  onChange: () => {
    // What the account may see differs: the page, the feed, the editor and the batch example start again.
    if (state.collections.length > 0) webhooksPanel.check();
    if (!state.current) return;
    batchPanel.offer(state.current);
    startNewRecord();
    loadPage(firstPage(), { earlier: [] });
    follow(state.current);
  },
});

/** The batch panel: a JSON array of operations, sent as one POST /batch/ (./batch.js). */
const batchPanel = createBatchPanel({
  form: $('batch-form'),
  textarea: $('batch-json'),
  example: $('batch-example'),
  send: $('batch-send'),
  status: $('batch-status'),
  answer: $('batch-answer'),
  call,
  describe,
  onDone: () => reloadPage(),
});

/** The Webhooks panel, shown while the credential may manage webhooks (./webhooks.js). */
const webhooksPanel = createWebhooksPanel({ panel: $('webhooks'), call, describe });

const state = {
  /** The collections the server's index lists: { name, description, list, create, item, singular }. */
  collections: [],
  current: undefined,
  /** The page on screen, the pages before it, and the next one from Link rel="next". */
  page: undefined,
  earlier: [],
  nextPage: undefined,
  rows: [],
  /** The record in the editor: { id, fields, createdAt, updatedAt, etag }, or undefined for a new one. */
  record: undefined,
  /**
   * Which content the editor holds: it changes whenever the editor gets other content (a
   * new record, another record). An answer that arrives after that is for content no longer
   * on screen, and leaves the editor alone.
   */
  editorEpoch: 0,
  /** Requests under way, for the indicator. */
  inFlight: 0,
  /** The records the whole query matches (X-Total-Count), when the server said. */
  total: undefined,
  /** Ends following the shown collection's change feed. */
  follow: undefined,
  /** A reload of the page on screen, waiting for more changes to come with it. */
  reload: undefined,
};

// ---------------------------------------------------------------------------------------
// Talking to the API

/**
 * One API call, with the signed-in account's token (else the API key, unless `anonymous`).
 * A 401 to the token renews it and sends the call once more: restock refuses a credential
 * before the request does anything. Resolves as {@link send} does.
 */
async function call(method, path, options = {}) {
  const token = options.anonymous ? undefined : await accounts.token();
  const result = await send(method, path, options, token);
  if (result.status !== 401 || token === undefined || !(await accounts.renewed(token))) return result;
  return send(method, path, options, await accounts.token());
}

/**
 * One request. With the switch on, PUT, PATCH and DELETE leave as POST carrying the
 * method in HTTP-X-HTTP-METHOD, exactly as a client limited to GET and POST sends them.
 * Resolves with the parsed body and, for an error, the problem document (RFC 9457). A `quiet`
 * request (a panel keeping itself current) is left out of the list of requests.
 */
async function send(method, path, { body, headers = {}, anonymous = false, quiet = false }, token) {
  const sent = { accept: 'application/json', ...headers };
  let wire = method;
  if (ui.tunnel.checked && TUNNELLED.has(method)) {
    wire = 'POST';
    sent[OVERRIDE_HEADER] = method;
  }
  // A form (a write with files) goes as it is: the browser writes its multipart Content-Type.
  const form = body instanceof FormData;
  if (body !== undefined && !form) sent['content-type'] = 'application/json';
  const key = anonymous ? '' : (token ?? ui.apiKey.value.trim());
  if (key) sent.authorization = `Bearer ${key}`;

  let response;
  let text;
  setBusy(+1);
  try {
    response = await fetch(path, {
      method: wire,
      headers: sent,
      body: body === undefined || form ? body : JSON.stringify(body),
      cache: 'no-store',
    });
    text = await response.text();
  } catch (error) {
    if (!quiet) logRequest(wire, method, path, 'no answer');
    return {
      ok: false,
      status: 0,
      problem: { title: 'No answer', detail: `The server could not be reached: ${error.message}` },
    };
  } finally {
    setBusy(-1);
  }
  let data;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!quiet) logRequest(wire, method, path, `${response.status} ${response.statusText}`);
  const result = { ok: response.ok, status: response.status, headers: response.headers, data };
  if (!response.ok) {
    const isProblem = (response.headers.get('content-type') ?? '').startsWith('application/problem+json');
    result.problem =
      isProblem && data ? data : { title: response.statusText || 'Error', detail: text || `HTTP ${response.status}` };
  }
  return result;
}

/** A file's bytes, read with the console's credential as any call is, or undefined when refused. */
async function fetchFile(path) {
  const token = await accounts.token();
  const key = token ?? ui.apiKey.value.trim();
  const response = await fetch(path, { headers: key ? { authorization: `Bearer ${key}` } : {} }).catch(() => undefined);
  return response?.ok ? response.blob() : undefined;
}
useFileFetcher(fetchFile);

/** The indicator that a request is under way, and how many. */
function setBusy(change) {
  state.inFlight += change;
  ui.busy.hidden = state.inFlight === 0;
  ui.busy.textContent = state.inFlight > 1 ? `Working (${state.inFlight} requests)…` : 'Working…';
  document.body.setAttribute('aria-busy', String(state.inFlight > 0));
}

function logRequest(wire, method, path, outcome) {
  const item = document.createElement('li');
  const line = document.createElement('code');
  line.textContent = `${wire} ${path}`;
  item.append(line);
  if (wire !== method) {
    const header = document.createElement('code');
    header.className = 'tunnel';
    header.textContent = `${OVERRIDE_HEADER}: ${method}`;
    item.append(' ', header);
  }
  item.append(` → ${outcome}`);
  ui.log.prepend(item);
  while (ui.log.children.length > LOG_LENGTH) ui.log.lastElementChild.remove();
}

/** The target of a Link header's rel="next", if any. */
function nextLink(header) {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/i.exec(part);
    if (match) return match[1];
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Collections and pages

async function start() {
  ui.tunnel.checked = localStorage.getItem('restock.tunnel') === 'true';
  ui.apiKey.value = sessionStorage.getItem('restock.apiKey') ?? '';
  ui.tunnel.addEventListener('change', () => localStorage.setItem('restock.tunnel', String(ui.tunnel.checked)));
  ui.apiKey.addEventListener('change', applyKey);

  const index = await call('GET', '/');
  if (!index.ok || !index.data?.collections) {
    showStatus(ui.listStatus, index.problem ?? { title: 'Unexpected index', detail: 'GET / listed no collections.' });
    return;
  }
  state.collections = Object.entries(index.data.collections).map(([name, links]) => ({
    name,
    ...links,
    singular: links.create.replaceAll('/', ''),
  }));
  accounts.show(state.collections);
  webhooksPanel.offer(state.collections);
  webhooksPanel.check();
  for (const collection of state.collections) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = capitalize(collection.name);
    button.title = collection.description;
    button.dataset.collection = collection.name;
    button.addEventListener('click', () => {
      location.hash = collection.name;
    });
    ui.collections.append(button);
  }
  window.addEventListener('hashchange', selectFromHash);
  selectFromHash();
  // The collections' schemas, for the editor's form, and who may list them: from the OpenAPI document, once.
  const described = await call('GET', typeof index.data.openapi === 'string' ? index.data.openapi : '/openapi.json');
  const openapi = described.ok ? described.data : undefined;
  const schemas = recordSchemas(openapi, state.collections);
  for (const collection of state.collections) {
    collection.schema = schemas.get(collection.name);
    collection.listsNoneToAnonymous = listsNoneToAnonymous(openapi, collection);
  }
  accounts.knowSchemas();
  if (state.current) {
    schemaForm.show(state.current, recordPath());
    batchPanel.offer(state.current);
    if (ui.listStatus.dataset.summary === 'true' && state.page) showSummary(state.current);
  }
}

/**
 * Whether the document says the collection's list shows nothing to a caller with no
 * credential (`x-anonymous-gets: nothing`), since its `list` rule cannot hold without an
 * account (as `userId == auth.id` cannot).
 */
function listsNoneToAnonymous(openapi, collection) {
  const list = openapi?.paths?.[collection.list];
  return (list?.head ?? list?.get)?.['x-anonymous-gets'] === 'nothing';
}

/** Whether requests go without a credential: no one signed in, no API key. */
const anonymous = () => !accounts.signedIn() && ui.apiKey.value.trim() === '';

/** `#orders` opens a collection; `#users/7` opens it with record 7 in the editor (a reference's link). */
function selectFromHash() {
  const [wanted, id] = fragmentText(location.hash.slice(1)).split('/');
  const collection = state.collections.find((c) => c.name === wanted) ?? state.collections[0];
  if (!collection) return;
  if (collection !== state.current) showCollection(collection);
  if (id && /^[1-9][0-9]{0,15}$/.test(id)) openRecord(Number(id));
}

function showCollection(collection) {
  state.current = collection;
  forgetFiles();
  for (const button of ui.collections.children) {
    button.setAttribute('aria-pressed', String(button.dataset.collection === collection.name));
  }
  ui.listTitle.textContent = capitalize(collection.name);
  document.title = `${capitalize(collection.name)} · restock console`;
  ui.q.value = '';
  ui.sort.value = '';
  // Nothing of the previous collection stays on screen, nor a pager into it, until (and
  // unless) the first page of this one arrives.
  Object.assign(state, { rows: [], page: undefined, nextPage: undefined, earlier: [] });
  renderTable();
  ui.first.disabled = ui.previous.disabled = ui.next.disabled = true;
  startNewRecord();
  batchPanel.offer(collection);
  loadPage(firstPage());
  follow(collection);
}

/**
 * Follows the collection's change feed (through fetch, which sends the token or the API key
 * as a header, unlike EventSource): a change by any client reloads the page on screen, at most twice a second.
 * A broken connection is resumed after the last event seen (Last-Event-ID), so a change
 * made meanwhile still shows; a `reset` (the log no longer holds what was missed) reloads
 * and says so beside the indicator.
 */
function follow(collection, lastId) {
  state.follow?.abort();
  const controller = new AbortController();
  state.follow = controller;
  ui.live.hidden = true;
  const headers = { accept: 'text/event-stream' };
  if (lastId !== undefined) headers['last-event-id'] = lastId;
  else Object.assign(ui.live, { textContent: '● live', title: 'Changes from any client show here as they happen' });
  (async () => {
    try {
      // The signed-in account's token (renewed first when due), else the key.
      const key = (await accounts.token()) ?? ui.apiKey.value.trim();
      if (key) headers.authorization = `Bearer ${key}`;
      if (controller.signal.aborted) return;
      const response = await fetch(collection.events, { headers, signal: controller.signal, cache: 'no-store' });
      if (!response.ok || !response.body) return;
      ui.live.hidden = false;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffered = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const events = (buffered + decoder.decode(value, { stream: true })).split('\n\n');
        buffered = events.pop() ?? '';
        for (const event of events) {
          lastId = /^id: (\d+)$/m.exec(event)?.[1] ?? lastId;
          const type = /^event: (\w+)$/m.exec(event)?.[1];
          if (type === 'reset') showReset();
          if (type) scheduleReload();
        }
      }
    } catch {
      // Aborted, or the connection broke: tried again below unless another collection took over.
    } finally {
      if (state.follow === controller) {
        ui.live.hidden = true;
        if (!controller.signal.aborted)
          setTimeout(() => state.follow === controller && follow(collection, lastId), 2000);
      }
    }
  })();
}

function showReset() {
  const at = new Date().toLocaleTimeString();
  ui.live.textContent = `● live · reloaded ${at}`;
  ui.live.title = `At ${at} the server no longer held every change since this page last heard from it, so the list was reloaded whole.`;
}

function scheduleReload() {
  state.reload ??= setTimeout(() => {
    state.reload = undefined;
    loadPage(state.page ?? firstPage(), { quiet: true });
  }, 500);
}

/** A fragment's text; one that is not valid percent-encoding (`#%E0%A4%A`) names nothing. */
function fragmentText(fragment) {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return '';
  }
}

/** The first page's address, with the search, sort and page size asked for. */
function firstPage() {
  const params = new URLSearchParams({ limit: ui.limit.value });
  // The records each column's reference names come embedded, to show and link them.
  const linked = linkedColumns(state.current);
  if (linked.length > 0) params.set('expand', linked.map((r) => r.name).join(','));
  const sort = ui.sort.value.replaceAll(' ', '');
  if (sort) params.set('sort', sort);
  if (ui.q.value.trim()) params.set('q', ui.q.value.trim());
  return `${state.current.list}?${params}`;
}

/**
 * Shows the page at `path` (`quiet`: without replacing a message about something else). A refused request (a malformed parameter such as `sort=a"b`, a
 * missing or unknown key) leaves the rows on screen and says why, in the problem's own words.
 */
async function loadPage(path, { earlier = state.earlier, quiet = false } = {}) {
  const collection = state.current;
  const result = await call('GET', path, { headers: { prefer: 'count=exact' } });
  if (collection !== state.current) return false;
  if (!result.ok) {
    showStatus(ui.listStatus, result.problem, result.status);
    return false;
  }
  state.page = path;
  state.earlier = earlier;
  state.nextPage = nextLink(result.headers.get('link'));
  state.rows = Array.isArray(result.data) ? result.data : [];
  const total = Number(result.headers.get('x-total-count'));
  state.total = result.headers.has('x-total-count') && Number.isFinite(total) ? total : undefined;
  renderTable();
  // A reload for another client's change leaves what the last action said on screen.
  if (!quiet || ui.listStatus.dataset.summary === 'true') showSummary(collection);
  ui.first.disabled = state.earlier.length === 0;
  ui.previous.disabled = state.earlier.length === 0;
  ui.next.disabled = !state.nextPage;
  return true;
}

const reloadPage = () => loadPage(state.page ?? firstPage());

/**
 * The page's summary on the status line. An empty page of a collection whose rules show
 * nothing without an account, asked for with no credential, is no answer about the records:
 * the table makes way for a hint to sign in.
 */
function showSummary(collection) {
  const hidden = state.rows.length === 0 && collection.listsNoneToAnonymous === true && anonymous();
  ui.signInHint.hidden = !hidden;
  ui.tableWrap.hidden = hidden;
  const signIn = accounts.canSignIn();
  if (hidden) {
    const where = signIn ? 'sign in above' : 'enter an API key';
    ui.signInHint.querySelector('span').textContent =
      `${capitalize(collection.name)} are shown only to those allowed to see them: ${where} to see yours.`;
    ui.signInHint.querySelector('button').textContent = signIn ? 'Go to sign-in' : 'Go to the API key';
  }
  const without = signIn ? 'signing in' : 'a key';
  showStatus(ui.listStatus, hidden ? `No ${collection.name} shown without ${without}.` : pageSummary(collection));
  ui.listStatus.dataset.summary = 'true';
}

/** "Page 2: 25 users of 73; more on the next page." */
function pageSummary(collection) {
  const count = state.rows.length;
  const number = state.earlier.length + 1;
  if (count === 0) return number === 1 ? `No ${collection.name} here.` : `Page ${number}: no more ${collection.name}.`;
  const noun = count === 1 ? collection.singular : collection.name;
  const of = state.total === undefined ? '' : ` of ${state.total}`;
  return `Page ${number}: ${count} ${noun}${of}${state.nextPage ? '; more on the next page' : ''}.`;
}

/** The references of a collection that are a column of their own: a top-level field holding one id. */
function linkedColumns(collection) {
  return (collection.references ?? []).filter((r) => !r.many && !r.name.includes('.'));
}

/** The columns of the page on screen: id, the fields most records have, and updatedAt. */
function columnsOf(rows) {
  const seen = new Map();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!SYSTEM_FIELDS.includes(key) && key !== 'expand') seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  }
  // Files first (a picture beside the id), then the fields most records have.
  const files = new Set([...seen.keys()].filter((key) => rows.some((row) => filesIn(row[key]).length > 0)));
  const fields = [...seen]
    .sort((a, b) => Number(files.has(b[0])) - Number(files.has(a[0])) || b[1] - a[1])
    .map(([key]) => key);
  ui.sortFields.replaceChildren(
    ...['id', ...fields, 'createdAt', 'updatedAt'].map((key) =>
      Object.assign(document.createElement('option'), { value: key }),
    ),
  );
  return ['id', ...fields.slice(0, FIELD_COLUMNS), 'updatedAt'];
}

/**
 * Renders the table anew (a page, a sort, a change from the feed). The element that had the
 * keyboard's focus in it, a row's button, a sort button or a link, is found again by its key
 * and focused: another client's change must not take a keyboard user's place.
 */
function renderTable() {
  const active = document.activeElement;
  const focused = active instanceof HTMLElement && ui.table.contains(active) ? active.dataset.key : undefined;
  drawTable();
  if (focused === undefined) return;
  const again = [...ui.table.querySelectorAll('[data-key]')].find((element) => element.dataset.key === focused);
  again?.focus();
}

function drawTable() {
  const columns = columnsOf(state.rows);
  const sorted = ui.sort.value.replaceAll(' ', '').split(',')[0] ?? '';
  const head = document.createElement('tr');
  for (const column of columns) {
    const cell = document.createElement('th');
    cell.scope = 'col';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'sort';
    button.dataset.key = `sort ${column}`;
    button.textContent = column;
    const direction = sorted === column ? 'ascending' : sorted === `-${column}` ? 'descending' : undefined;
    if (direction) cell.setAttribute('aria-sort', direction);
    button.title = `Sort by ${column}${direction === 'ascending' ? ', descending' : ''}`;
    button.addEventListener('click', () => {
      ui.sort.value = direction === 'ascending' ? `-${column}` : column;
      loadPage(firstPage(), { earlier: [] });
    });
    cell.append(button);
    head.append(cell);
  }
  ui.table.tHead.replaceChildren(head);

  const linked = new Map(linkedColumns(state.current).map((r) => [r.name, r.collection]));
  const body = ui.table.tBodies[0];
  body.replaceChildren(
    ...state.rows.map((row) => {
      const tr = document.createElement('tr');
      if (state.record?.id === row.id) tr.className = 'selected';
      for (const column of columns) {
        const cell = document.createElement('td');
        if (column === 'id') {
          const open = document.createElement('button');
          open.type = 'button';
          open.className = 'open';
          open.dataset.key = `open ${row.id}`;
          open.textContent = String(row.id);
          open.setAttribute('aria-label', `Edit ${state.current.singular} ${row.id}`);
          open.addEventListener('click', () => openRecord(row.id));
          cell.append(open);
        } else if (linked.has(column) && Number.isSafeInteger(row[column]) && row[column] > 0) {
          const link = referenceLink(linked.get(column), row[column], row.expand?.[column]);
          link.dataset.key = `link ${row.id} ${column}`;
          cell.append(link);
        } else {
          const base = state.current.item.replace('{id}', row.id);
          const files = filePreviews(base, column, row[column], fileSpec(column));
          if (files) cell.append(files);
          else cell.textContent = preview(row[column], column === 'updatedAt');
        }
        tr.append(cell);
      }
      tr.addEventListener('click', (event) => {
        // Buttons and reference links do their own thing.
        if (!(event.target instanceof HTMLButtonElement || event.target instanceof HTMLAnchorElement)) {
          openRecord(row.id);
        }
      });
      return tr;
    }),
  );
}

/** A link to the record a reference names (`#users/7`), labelled with its id and its name or title. */
function referenceLink(collection, id, record) {
  const link = document.createElement('a');
  link.href = `#${encodeURIComponent(collection)}/${id}`;
  const label = record
    ? ['name', 'title', 'label', 'email'].map((key) => record[key]).find((v) => typeof v === 'string')
    : undefined;
  link.textContent = record === null ? `${id} (missing)` : label ? `${id} ${preview(label)}` : String(id);
  link.title = `Open ${collection} ${id}`;
  return link;
}

/** The `x-file` of a field of the collection on screen, from its schema (thumbnail sizes, types). */
function fileSpec(field) {
  return state.current.schema?.properties.find(([name]) => name === field)?.[1]['x-file'];
}

/** The path of the record in the editor, for its files; undefined for a new record. */
const recordPath = () => state.record && state.current.item.replace('{id}', state.record.id);

function preview(value, isTime) {
  if (value === undefined) return '';
  if (isTime && typeof value === 'string') return value.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

// ---------------------------------------------------------------------------------------
// The editor

function startNewRecord() {
  state.editorEpoch++;
  state.record = undefined;
  ui.editorTitle.textContent = `New ${state.current.singular}`;
  ui.json.value = '{\n  \n}';
  schemaForm.show(state.current);
  ui.save.textContent = `Create ${state.current.singular}`;
  ui.delete.hidden = true;
  ui.meta.hidden = true;
  clearErrors();
  for (const row of ui.table.tBodies[0].rows) row.classList.remove('selected');
}

/** Reads one record afresh (for its ETag too) and puts it in the editor. */
async function openRecord(id) {
  const epoch = ++state.editorEpoch;
  const result = await call('GET', state.current.item.replace('{id}', id));
  if (epoch !== state.editorEpoch) return;
  if (!result.ok) {
    showStatus(ui.listStatus, result.problem, result.status);
    return;
  }
  showRecord(result.data, result.headers.get('etag'));
  schemaForm.focus();
}

function showRecord(record, etag) {
  state.editorEpoch++;
  const { id, createdAt, updatedAt, ...fields } = record;
  state.record = { id, createdAt, updatedAt, fields, etag: etag ?? undefined };
  ui.editorTitle.textContent = `${capitalize(state.current.singular)} ${id}`;
  ui.json.value = JSON.stringify(fields, null, 2);
  schemaForm.show(state.current, recordPath());
  ui.save.textContent = 'Save changes';
  ui.delete.hidden = false;
  ui.meta.hidden = false;
  $('meta-id').textContent = String(id);
  $('meta-created').textContent = createdAt;
  $('meta-updated').textContent = updatedAt;
  $('meta-etag').textContent = etag ?? '';
  clearErrors();
  for (const row of ui.table.tBodies[0].rows) {
    row.classList.toggle('selected', row.cells[0]?.textContent === String(id));
  }
}

/** The editor's JSON as an object, or undefined after saying inline what is wrong with it. */
function readEditor() {
  let value;
  try {
    value = JSON.parse(ui.json.value);
  } catch (error) {
    showErrors({ title: 'Not valid JSON', detail: error.message });
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    showErrors({ title: 'Not a JSON object', detail: 'A record is a JSON object: { "name": "value", … }.' });
    return undefined;
  }
  return value;
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The JSON Merge Patch (RFC 7396) that turns `before` into `after`: changed fields, nested
 * objects as their own patches, and null for each field that was removed.
 */
function mergePatch(before, after) {
  // No prototype: a field named __proto__ stays a field.
  const patch = Object.create(null);
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) patch[key] = null;
  for (const [key, value] of Object.entries(after)) {
    const old = Object.hasOwn(before, key) ? before[key] : undefined;
    if (isObject(value) && isObject(old)) {
      const inner = mergePatch(old, value);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (old === undefined || JSON.stringify(old) !== JSON.stringify(value)) {
      patch[key] = value;
    }
  }
  return patch;
}

async function save(event) {
  event.preventDefault();
  clearErrors();
  // What the last action said (Saved product 7.) is no longer news once another save is tried.
  if (ui.listStatus.dataset.summary !== 'true' && state.page) showSummary(state.current);
  if (!schemaForm.write()) return;
  const fields = readEditor();
  if (!fields) return;
  const files = schemaForm.uploads();
  const collection = state.current;
  const epoch = state.editorEpoch;
  if (!state.record) {
    const result = await writing(() => call('POST', collection.create, { body: writeBody(fields, files) }));
    if (epoch === state.editorEpoch) {
      if (!result.ok) return refused(result.problem, result.status);
      showRecord(result.data, result.headers.get('etag'));
    }
    if (!result.ok) return;
    await reloadPage();
    showStatus(ui.listStatus, `Created ${collection.singular} ${result.data.id}.`);
    return;
  }
  const { id, etag } = state.record;
  const patch = mergePatch(state.record.fields, fields);
  if (Object.keys(patch).length === 0 && files.length === 0) {
    showStatus(ui.listStatus, `Nothing changed in ${collection.singular} ${id}.`);
    return;
  }
  const result = await writing(() =>
    call('PUT', collection.item.replace('{id}', id), {
      body: writeBody(patch, files),
      headers: etag ? { 'if-match': etag } : {},
    }),
  );
  if (epoch !== state.editorEpoch) return;
  if (!result.ok) return refused(result.problem, result.status, id);
  showRecord(result.data, result.headers.get('etag'));
  await reloadPage();
  showStatus(ui.listStatus, `Saved ${collection.singular} ${id}.`);
}

async function remove() {
  if (!state.record) return;
  const collection = state.current;
  const { id, etag } = state.record;
  if (!window.confirm(`Delete ${collection.singular} ${id}?`)) return;
  const epoch = state.editorEpoch;
  const result = await writing(() =>
    call('DELETE', collection.item.replace('{id}', id), { headers: etag ? { 'if-match': etag } : {} }),
  );
  if (epoch !== state.editorEpoch) return;
  if (!result.ok) return refused(result.problem, result.status, id);
  startNewRecord();
  await reloadPage();
  showStatus(ui.listStatus, `Deleted ${collection.singular} ${id}.`);
  schemaForm.focus();
}

/** Runs a write with Save and Delete disabled, so that a second click cannot send it twice. */
async function writing(send) {
  ui.save.disabled = ui.delete.disabled = true;
  ui.form.setAttribute('aria-busy', 'true');
  try {
    return await send();
  } finally {
    ui.save.disabled = ui.delete.disabled = false;
    ui.form.removeAttribute('aria-busy');
  }
}

function formatEditor() {
  clearErrors();
  const fields = readEditor();
  if (fields) ui.json.value = JSON.stringify(fields, null, 2);
}

// ---------------------------------------------------------------------------------------
// Messages

function clearErrors() {
  ui.errors.replaceChildren();
  ui.json.removeAttribute('aria-invalid');
  schemaForm.clearErrors();
}

/**
 * A problem next to the editor: its title and detail, then one line per `errors[]` entry.
 * A 412 (the record changed since it was read) offers to read it again.
 */
function showErrors(problem, status, id) {
  const items = [];
  const head = document.createElement('li');
  head.textContent = describe(problem, status);
  items.push(head);
  for (const error of Array.isArray(problem.errors) ? problem.errors : []) {
    const item = document.createElement('li');
    item.className = 'field-error';
    const pointer = document.createElement('code');
    pointer.textContent = error.pointer || '(the whole body)';
    item.append(pointer, ` ${error.message}`);
    items.push(item);
  }
  if (status === 412 && id !== undefined) {
    const item = document.createElement('li');
    const reload = document.createElement('button');
    reload.type = 'button';
    reload.textContent = `Reload ${state.current.singular} ${id} (your edits here are lost)`;
    reload.addEventListener('click', () => openRecord(id));
    item.append('It changed since you opened it. ', reload);
    items.push(item);
  }
  ui.errors.replaceChildren(...items);
  ui.json.setAttribute('aria-invalid', 'true');
  schemaForm.showErrors(problem.errors);
}

/** A write the server refused: the problem beside the editor, and on the status line in place of the last success. */
function refused(problem, status, id) {
  showErrors(problem, status, id);
  showStatus(ui.listStatus, problem, status);
}

/** A line of status: plain text, or a problem document's detail (marked as an error). */
function showStatus(target, message, status) {
  const isProblem = typeof message === 'object';
  target.dataset.summary = 'false';
  target.classList.toggle('error', isProblem);
  target.textContent = isProblem ? describe(message, status) : message;
}

/** A problem in one line: status, title, detail (without the title twice when the detail repeats it). */
function describe(problem, status) {
  const title = problem.title ?? 'Error';
  const detail = problem.detail ?? '';
  const text = detail.startsWith(title) ? detail : `${title}: ${detail}`;
  return status ? `${status} ${text}` : text;
}

const capitalize = (word) => word.charAt(0).toUpperCase() + word.slice(1);

// ---------------------------------------------------------------------------------------
// Wiring

$('settings').addEventListener('submit', (event) => {
  event.preventDefault();
  applyKey();
});

/**
 * Keeps the key for the browser session and reloads the page with it. Enter in the key
 * field fires both the field's change and the form's submit: the second finds the key
 * already applied and sends nothing.
 */
function applyKey() {
  const key = ui.apiKey.value.trim();
  if (key === (sessionStorage.getItem('restock.apiKey') ?? '')) return;
  sessionStorage.setItem('restock.apiKey', key);
  if (state.collections.length > 0) webhooksPanel.check();
  if (!state.current) return;
  loadPage(firstPage());
  follow(state.current);
}
ui.query.addEventListener('submit', (event) => {
  event.preventDefault();
  loadPage(firstPage(), { earlier: [] });
});
ui.limit.addEventListener('change', () => loadPage(firstPage(), { earlier: [] }));
ui.first.addEventListener('click', () => loadPage(firstPage(), { earlier: [] }));
ui.previous.addEventListener('click', () => {
  const earlier = state.earlier.slice(0, -1);
  loadPage(state.earlier.at(-1) ?? firstPage(), { earlier });
});
ui.next.addEventListener('click', () => {
  if (state.nextPage) loadPage(state.nextPage, { earlier: [...state.earlier, state.page] });
});
ui.form.addEventListener('submit', save);
ui.json.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) ui.form.requestSubmit();
});
ui.format.addEventListener('click', formatEditor);
ui.newRecord.addEventListener('click', () => {
  startNewRecord();
  schemaForm.focus();
});
ui.delete.addEventListener('click', remove);
ui.signInHint.querySelector('button').addEventListener('click', () => {
  (accounts.canSignIn() ? $('sign-in-forms').querySelector('input') : ui.apiKey)?.focus();
});

start();
