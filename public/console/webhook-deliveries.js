/**
 * One webhook's recent deliveries in the console's Webhooks panel (./webhooks.js): each
 * with its state, last HTTP status, attempts, error and times, and a Replay button; a replay
 * of every change since a time; read again every few seconds while shown, since deliveries
 * change without any record changing. Also the small DOM helpers the panel shares.
 */

/** How often the deliveries on screen (and the webhooks' states, by `onPoll`) are read again. */
const POLL_MS = 2000;
const DELIVERY_PAGE = 25;

/** An ISO time as the console shows times (`2026-03-01 12:00:00Z`), or a dash for none. */
export const time = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');
export const itemOf = (id) => `/webhook/${id}/`;

export function element(tag, properties = {}, ...children) {
  const made = Object.assign(document.createElement(tag), properties);
  made.append(...children);
  return made;
}

/** A row's button; `key` finds it again after the table is drawn anew, to keep the keyboard's place. */
export function button(text, label, key, action) {
  const made = element('button', { type: 'button', textContent: text });
  made.setAttribute('aria-label', label);
  made.dataset.key = key;
  made.addEventListener('click', action);
  return made;
}

/** Fills `body` with `rows`, focusing again the button that had the focus (by its data-key). */
export function redraw(body, rows) {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && body.contains(active) ? active.dataset.key : undefined;
  body.replaceChildren(...rows);
  if (key) [...body.querySelectorAll('[data-key]')].find((b) => b.dataset.key === key)?.focus();
}

/** A table row of cells, each a text or an element. */
export const row = (...cells) => element('tr', {}, ...cells.map((cell) => element('td', {}, cell ?? '')));

/**
 * `call` sends a request the console's way; `say(message, status)` puts a text or a problem
 * on the panel's status line; `onPoll()` reads the webhooks again (their paused states).
 */
export function createDeliveries({ section, call, say, onPoll }) {
  const $ = (selector) => section.querySelector(selector);
  let selected;
  let timer;
  /** The JSON of the page on screen: an unchanged page is not drawn again. */
  let shown = '';

  /** Opens webhook `id`'s deliveries (undefined closes them). */
  function select(id) {
    clearTimeout(timer);
    selected = id;
    shown = '';
    section.hidden = id === undefined;
    if (id === undefined) return;
    $('h3').textContent = `Deliveries of webhook ${id}`;
    $('caption').textContent = `The deliveries webhook ${id} keeps, newest first`;
    $('tbody').replaceChildren();
    load(id);
  }

  async function load(id, { quiet = false } = {}) {
    clearTimeout(timer);
    const query = new URLSearchParams({ limit: String(DELIVERY_PAGE) });
    if ($('select').value) query.set('state', $('select').value);
    const result = await call('GET', `${itemOf(id)}deliveries/?${query}`, { quiet });
    if (id !== selected) return;
    if (!result.ok) say(result.problem, result.status);
    else if (JSON.stringify(result.data) !== shown) {
      shown = JSON.stringify(result.data);
      redraw($('tbody'), result.data.map(deliveryRow));
    }
    // A hidden tab reads nothing: the next look comes when it shows again.
    timer = setTimeout(() => !document.hidden && poll(id), POLL_MS);
  }

  async function poll(id) {
    await onPoll();
    if (id === selected) await load(id, { quiet: true });
  }

  function deliveryRow(delivery) {
    const { messageId } = delivery;
    const replay = button('Replay', `Replay ${messageId}`, `replay ${messageId}`, () =>
      replayWith({ delivery: messageId }, `Replaying ${messageId}.`),
    );
    const change = `${delivery.type} of ${delivery.recordId}`;
    const http = delivery.status === null ? '—' : String(delivery.status);
    const tr = row(messageId, change, delivery.state, http, String(delivery.attempts), delivery.error ?? '');
    const times = [delivery.occurredAt, delivery.lastAttemptAt, delivery.nextAt];
    tr.append(...times.map((t) => element('td', {}, time(t))), element('td', {}, replay));
    tr.dataset.state = delivery.state;
    return tr;
  }

  async function replayWith(body, text) {
    const id = selected;
    const result = await call('POST', `${itemOf(id)}replay/`, { body });
    if (!result.ok) return say(result.problem, result.status);
    say(text);
    await onPoll();
    if (id === selected) await load(id, { quiet: true });
  }

  function replaySince(event) {
    event.preventDefault();
    // The local date and time picked, sent in UTC.
    const picked = event.currentTarget.elements.since.value;
    const since = picked ? new Date(picked) : undefined;
    if (!since || Number.isNaN(since.getTime())) {
      return say({ title: 'No time', detail: 'Pick the date and time to replay from.' });
    }
    replayWith({ since: since.toISOString() }, `Replaying every change since ${time(since.toISOString())}.`);
  }

  $('.refresh').addEventListener('click', () => selected && load(selected));
  $('select').addEventListener('change', () => selected && load(selected));
  $('.replay-since').addEventListener('submit', replaySince);
  document.addEventListener('visibilitychange', () => !document.hidden && selected && poll(selected));
  return { select, selected: () => selected };
}
