/**
 * The console's Webhooks panel: the webhooks listed, made (the secret shown once, kept in the
 * page only, never in storage), paused, resumed, removed and their secrets rotated; one
 * webhook's deliveries are ./webhook-deliveries.js's. Only a write key manages webhooks (or
 * no key, where the server has none): the panel shows itself when `GET /webhooks/` answers,
 * and hides when the credential may not.
 */
import { button, createDeliveries, element, itemOf, redraw, row, time } from './webhook-deliveries.js';

/** The answers that say this credential may not manage webhooks (or this server has none). */
const NOT_HERE = new Set([401, 403, 404]);

/**
 * `call(method, path, options)` sends a request the console's way (`quiet`: left out of the
 * list of requests, for the reads that keep the panel current); `describe(problem, status)`
 * says a problem in one line.
 */
export function createWebhooksPanel({ panel, call, describe }) {
  const $ = (selector) => panel.querySelector(selector);
  const form = $('#webhook-form');
  const secretBox = $('#webhook-secret');
  const list = $('#webhook-list tbody');
  let webhooks = [];
  /** The JSON of the list on screen: an unchanged list is not drawn again. */
  let shown = '';
  const deliveries = createDeliveries({
    section: $('#webhook-deliveries'),
    call,
    say,
    onPoll: () => check({ quiet: true }),
  });

  /** Which collections a webhook may follow: a checkbox for each. */
  function offer(collections) {
    const boxes = collections.map(({ name }) =>
      element('label', {}, element('input', { type: 'checkbox', name: 'collections', value: name }), ` ${name}`),
    );
    $('.collections').replaceChildren(element('legend', { textContent: 'Collections' }), ...boxes);
  }

  /** Reads the webhooks with the credential now in use: the panel shows if it may manage them. */
  async function check({ quiet = false } = {}) {
    const result = await call('GET', '/webhooks/', { quiet });
    if (!result.ok && NOT_HERE.has(result.status)) return hide();
    panel.hidden = false;
    if (!result.ok) return say(result.problem, result.status);
    webhooks = Array.isArray(result.data) ? result.data : [];
    const selected = deliveries.selected();
    if (selected !== undefined && !webhooks.some((webhook) => webhook.id === selected)) deliveries.select(undefined);
    draw();
    if (!quiet) say(webhooks.length === 0 ? 'No webhooks yet.' : `Webhooks: ${webhooks.length}.`);
  }

  function draw() {
    const text = JSON.stringify([webhooks, deliveries.selected()]);
    if (text !== shown) redraw(list, webhooks.map(webhookRow));
    shown = text;
  }

  function hide() {
    panel.hidden = true;
    forgetSecret();
    deliveries.select(undefined);
  }

  function webhookRow(webhook) {
    const { id, paused, declared } = webhook;
    const isOpen = deliveries.selected() === id;
    const open = button('Deliveries', `Deliveries of webhook ${id}`, `deliveries ${id}`, () => {
      deliveries.select(id);
      draw();
    });
    open.setAttribute('aria-pressed', String(isOpen));
    const actions = element('span', { className: 'row-actions' }, open);
    if (declared) actions.append(` declared as ${webhook.name}: change it in the WEBHOOKS file`);
    else {
      const pause = paused ? 'Resume' : 'Pause';
      actions.append(
        button(pause, `${pause} webhook ${id}`, `pause ${id}`, () => setPaused(webhook, !paused)),
        button('Rotate secret', `Rotate the secret of webhook ${id}`, `rotate ${id}`, () => rotate(id)),
        button('Delete', `Delete webhook ${id}`, `delete ${id}`, () => remove(id)),
      );
    }
    const state = paused ? `paused ${time(paused.at)}: ${paused.reason ?? ''}` : 'active';
    const tr = row(String(id), webhook.url, webhook.collections.join(', '), webhook.events.join(', '), state, actions);
    tr.classList.toggle('paused', Boolean(paused));
    tr.classList.toggle('selected', isOpen);
    if (webhook.filter)
      tr.cells[1].append(element('div', { className: 'hint', textContent: `filter: ${webhook.filter}` }));
    return tr;
  }

  async function create(event) {
    event.preventDefault();
    const data = new FormData(form);
    const body = { url: String(data.get('url')).trim(), collections: data.getAll('collections') };
    body.events = data.getAll('events');
    const filter = String(data.get('filter')).trim();
    if (filter) body.filter = filter;
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    const result = await call('POST', '/webhooks/', { body }).finally(() => {
      submit.disabled = false;
    });
    formProblem(result.ok ? undefined : result.problem, result.status);
    if (!result.ok) return say(result.problem, result.status);
    form.reset();
    showSecret(`The secret of webhook ${result.data.id}:`, result.data.secret);
    await check({ quiet: true });
    say(`Created webhook ${result.data.id}.`);
  }

  /** The create form's problem: its line, then one per `errors[]` entry (its pointer and message). */
  function formProblem(problem, status) {
    const lines = problem ? [element('li', { textContent: describe(problem, status) })] : [];
    for (const error of Array.isArray(problem?.errors) ? problem.errors : []) {
      const pointer = element('code', { textContent: error.pointer || '(the whole body)' });
      lines.push(element('li', { className: 'field-error' }, pointer, ` ${error.message}`));
    }
    form.querySelector('.errors').replaceChildren(...lines);
  }

  /** A secret, in the page only (never stored), until it is dismissed or the panel hides. */
  function showSecret(text, secret) {
    $('#webhook-secret span').textContent = text;
    $('#webhook-secret code').textContent = secret;
    secretBox.hidden = false;
  }

  function forgetSecret() {
    secretBox.hidden = true;
    $('#webhook-secret code').textContent = '';
  }

  /** A PUT replaces the definition: it is sent whole, with the pause asked for. */
  async function setPaused(webhook, paused) {
    const { url, collections, events, filter } = webhook;
    const result = await call('PUT', itemOf(webhook.id), { body: { url, collections, events, filter, paused } });
    await settled(result, `${paused ? 'Paused' : 'Resumed'} webhook ${webhook.id}.`);
  }

  async function rotate(id) {
    if (!window.confirm(`Rotate the secret of webhook ${id}? The old one keeps signing beside it for a while.`)) return;
    const result = await call('POST', `${itemOf(id)}secret/`);
    if (result.ok) {
      const until = time(result.data.previousSecretUntil);
      showSecret(`The new secret of webhook ${id} (the old one signs too until ${until}):`, result.data.secret);
    }
    await settled(result, `Rotated the secret of webhook ${id}.`);
  }

  async function remove(id) {
    if (!window.confirm(`Delete webhook ${id} and the deliveries it keeps?`)) return;
    const result = await call('DELETE', itemOf(id));
    await settled(result, `Deleted webhook ${id}.`);
  }

  /** After a change: the list read again, and what happened said (a problem in its own words). */
  async function settled(result, text) {
    await check({ quiet: true });
    if (result.ok) say(text);
    else say(result.problem, result.status);
  }

  /** A line of status: a text, or a problem (marked as an error). */
  function say(message, status) {
    const line = $('#webhooks-status');
    const problem = typeof message === 'object';
    line.classList.toggle('error', problem);
    line.textContent = problem ? describe(message, status) : message;
  }

  form.addEventListener('submit', create);
  $('#webhook-secret button').addEventListener('click', forgetSecret);
  return { offer, check };
}
