/**
 * Signing in to the console with an account (a collection whose index entry has `auth`),
 * and out (signing up, a forgotten password, providers and links from mail are
 * ./account-flows.js's). While signed in, every request and the change feed carry the
 * account's access token, which is renewed before it expires (and once after a 401); the
 * session is kept for the browser tab, as the API key is, so that a reload does not sign out.
 */
import { capitalize, createAccountFlows, labelled } from './account-flows.js';

const STORAGE_KEY = 'restock.session';
/** Renew this long before expiry at most: a quarter of the token's life when that is shorter. */
const EARLY_MS = 30_000;

/**
 * `call(method, path, options)` sends a request the console's way (logged, tunnelled when the
 * switch is on; `anonymous` sends no credential); `describe(problem, status)` says a problem in
 * one line; `onChange()` runs after every sign-in and sign-out.
 */
export function createAccounts({ panel, forms, who, resend, signOutButton, status, call, describe, onChange }) {
  let session = load();
  let refreshing;
  let timer;
  let collections = [];
  const flows = createAccountFlows({ forms, call, describe, say, welcome, refresh: () => session && refresh() });

  /** Shows a sign-in form for each account collection of the index, or who is signed in. */
  function show(all) {
    collections = all.filter((collection) => typeof collection.auth === 'string');
    panel.hidden = collections.length === 0;
    if (session && !collections.some((c) => c.name === session.collection)) forget();
    const signsIn = collections.filter((c) => (c.signInWith ?? []).length > 0);
    forms.replaceChildren(
      ...signsIn.map((collection) => {
        const box = document.createElement('div');
        box.className = 'account-box';
        const form = signInForm(collection);
        box.append(form, ...flows.offer(collection, form));
        return box;
      }),
    );
    render();
    schedule();
    flows.followLink(collections);
  }

  function signInForm(collection) {
    const form = document.createElement('form');
    form.className = 'sign-in';
    form.dataset.collection = collection.name;
    const legend = Object.assign(document.createElement('legend'), { textContent: `Sign in to ${collection.name}` });
    const fieldset = document.createElement('fieldset');
    const fields = collection.signInWith;
    const name = Object.assign(document.createElement('input'), { name: 'name', required: true, spellcheck: false });
    name.autocomplete = 'username';
    const nameLabel = labelled(capitalize(fields[0]), name);
    const parts = [legend];
    if (fields.length > 1) {
      // Any unique field signs in: the label says which one the text is.
      const choice = document.createElement('select');
      choice.name = 'field';
      choice.append(...fields.map((field) => Object.assign(document.createElement('option'), { textContent: field })));
      choice.addEventListener('change', () => {
        nameLabel.firstChild.textContent = capitalize(choice.value);
      });
      parts.push(labelled('Sign in with', choice));
    }
    const password = Object.assign(document.createElement('input'), { type: 'password', name: 'password' });
    Object.assign(password, { required: true, autocomplete: 'current-password' });
    const submit = Object.assign(document.createElement('button'), { type: 'submit', textContent: 'Sign in' });
    submit.className = 'primary';
    fieldset.append(...parts, nameLabel, labelled('Password', password), submit);
    form.append(fieldset);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const field = form.elements.field?.value ?? fields[0];
      signIn(collection, { [field]: name.value.trim(), password: password.value }, form);
    });
    return form;
  }

  async function signIn(collection, body, form) {
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    const result = await call('POST', collection.auth, { body, anonymous: true });
    button.disabled = false;
    form.removeAttribute('aria-busy');
    if (!result.ok) {
      say(describe(result.problem, result.status), true);
      form.elements.password.select();
      return;
    }
    form.reset();
    welcome(collection.name, result.data);
  }

  /** Takes up what a sign-in answered (a password's, a provider's, a new password's), and says `text`. */
  function welcome(collection, issued, text = '') {
    accept(collection, issued);
    render();
    say(text);
    // The form is gone: the keyboard's place goes to what took its place.
    signOutButton.focus();
    onChange();
  }

  async function signOut() {
    await refreshing?.catch(() => {});
    if (!session) return;
    const { collection, refreshToken } = session;
    forget();
    render();
    say(`Signed out of ${collection}.`);
    forms.querySelector('input')?.focus();
    onChange();
    // restock revokes the refresh token (and every one rotated from it); DELETE goes as POST
    // with the override header when the switch is on, as for records.
    const result = await call('DELETE', authOf(collection), { body: { refreshToken }, anonymous: true });
    if (!result.ok) say(`Signed out here, but ${describe(result.problem, result.status)}`, true);
  }

  /** The token to send now, renewed first when it is due; undefined when no one is signed in. */
  async function token() {
    if (session && !refreshing && Date.now() < dueAt(session)) return session.token;
    if (!session) return undefined;
    return (await refresh()) ? session?.token : undefined;
  }

  /** After `rejected` met a 401: whether a newer token is ready to send the request again with. */
  async function renewed(rejected) {
    if (!session) return false;
    if (session.token !== rejected && !refreshing) return true;
    return refresh();
  }

  /** Renews the token once, however many requests ask at the same time; false after signing out. */
  function refresh() {
    refreshing ??= renew().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  async function renew() {
    const before = session;
    if (!before) return false;
    // Sent once only: a refresh token used twice revokes every token rotated from it.
    const body = { refreshToken: before.refreshToken };
    const result = await call('POST', `${authOf(before.collection)}refresh/`, { body, anonymous: true });
    if (session !== before) return session !== undefined;
    if (result.ok) {
      accept(before.collection, result.data);
      render();
      return true;
    }
    forget();
    render();
    say(`Signed out: the session could not be renewed (${describe(result.problem, result.status)}).`, true);
    onChange();
    return false;
  }

  function accept(collection, { token, refreshToken, expiresIn, record }) {
    const now = Date.now();
    session = { collection, token, refreshToken, expiresAt: now + expiresIn * 1000, lifeMs: expiresIn * 1000, record };
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
    schedule();
  }

  function forget() {
    session = undefined;
    sessionStorage.removeItem(STORAGE_KEY);
    clearTimeout(timer);
  }

  /** Renews the token shortly before it expires, even with no request to send. */
  function schedule() {
    clearTimeout(timer);
    if (session) timer = setTimeout(() => session && refresh(), Math.max(0, dueAt(session) - Date.now()));
  }

  function render() {
    const shown = session && collections.some((c) => c.name === session.collection);
    forms.hidden = Boolean(shown);
    who.parentElement.hidden = !shown;
    if (!shown) return;
    const { record, collection } = session;
    const label = [record.name, record.email].find((value) => typeof value === 'string') ?? `#${record.id}`;
    const role = typeof record.role === 'string' ? ` (${record.role})` : '';
    // A collection that proves addresses says whether this one is, as the token's claims do.
    const unproven = collections.find((c) => c.name === collection)?.verify === 'email' && !claimsOf(session).verified;
    who.textContent = `Signed in as ${label}${role}, one of ${collection}${unproven ? ' (email not verified)' : ''}`;
    resend.hidden = !unproven;
  }

  async function resendLink() {
    const result = await call('POST', `${authOf(session.collection)}verify/resend/`);
    say(result.ok ? 'A new verification link is on its way.' : describe(result.problem, result.status), !result.ok);
  }

  function say(text, isError = false) {
    status.textContent = text;
    status.classList.toggle('error', isError);
  }

  function authOf(name) {
    return collections.find((c) => c.name === name)?.auth ?? `/${name}/auth/`;
  }

  signOutButton.addEventListener('click', signOut);
  resend.addEventListener('click', resendLink);
  return {
    show,
    token,
    renewed,
    signedIn: () => session !== undefined,
    /** The collections' schemas are known (or will not be): sign-up forms may ask for their fields. */
    knowSchemas: () => flows.knowSchemas(),
    /** Whether a sign-in form is on the page (an account collection signs in with a field). */
    canSignIn: () => forms.childElementCount > 0,
  };
}

/** The session kept for this tab, if it is whole. */
function load() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null');
    const whole = kept && typeof kept.token === 'string' && typeof kept.refreshToken === 'string';
    return whole && typeof kept.record === 'object' && Number.isFinite(kept.expiresAt) ? kept : undefined;
  } catch {
    return undefined;
  }
}

/** When to renew: 30 seconds before expiry, or a quarter of the token's life before when that is shorter. */
function dueAt({ expiresAt, lifeMs }) {
  return expiresAt - Math.min(EARLY_MS, (Number(lifeMs) || 0) / 4);
}

/** The access token's claims (its middle part, base64url of UTF-8 JSON), or none when it cannot be read. */
function claimsOf({ token }) {
  try {
    const bytes = atob(token.split('.')[1].replaceAll('-', '+').replaceAll('_', '/'));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(bytes, (c) => c.charCodeAt(0))));
  } catch {
    return {};
  }
}
