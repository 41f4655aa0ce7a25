/**
 * The account flows beside signing in (./auth.js): signing up, a forgotten password, signing
 * in with an outside provider, and the links that come back to this page. restock's mail
 * links here with `?action=verify|reset|email&collection=<plural>&token=<token>`, and a
 * provider's sign-in returns with `?collection=<plural>&code=<code>` (or `&error=`).
 */

/** What a provider sign-in's `error` means, in words. */
const PROVIDER_ERRORS = {
  denied: 'it was cancelled at the provider',
  'provider-error': 'the provider did not confirm who you are',
  'account-exists': 'an account has this email: sign in with its password and verify the email first',
  'account-refused': 'the provider’s details make no account here',
};

/**
 * `call` and `describe` as ./auth.js has them; `say(text, isError)` writes the account's
 * status line; `welcome(collection, issued, text)` takes up a sign-in's tokens; `refresh()`
 * renews the session (its claims) after restock changed the account.
 */
export function createAccountFlows({ forms, call, describe, say, welcome, refresh }) {
  let followed = false;
  /** Whether the collections' schemas are known (or will not be): a sign-up asks the fields they require. */
  let schemasKnown = false;

  /** What goes under a collection's sign-in form: sign-up, a forgotten password, its providers. */
  function offer(collection, signIn) {
    const actions = Object.assign(document.createElement('p'), { className: 'account-actions' });
    const open = (build) => () => {
      const form = build(collection, back);
      signIn.hidden = actions.hidden = providers.hidden = true;
      actions.after(form);
      form.querySelector('input').focus();
      function back() {
        form.remove();
        signIn.hidden = actions.hidden = false;
        providers.hidden = providers.childElementCount === 0;
        signIn.querySelector('input').focus();
      }
    };
    const signUp = Object.assign(button('Create an account', open(signUpForm)), { disabled: !schemasKnown });
    signUp.className = 'sign-up-button';
    actions.append(signUp, button('Forgot password?', open(forgotForm)));
    const providers = Object.assign(document.createElement('p'), { className: 'providers', hidden: true });
    offerProviders(collection, providers);
    return [actions, providers];
  }

  /** Sign-up: a create of the account collection with no credential, then a sign-in as the new account. */
  function signUpForm(collection, back) {
    const inputs = signUpFields(collection).map(([name, property]) => fieldInput(name, property));
    const form = accountForm('sign-up', `Create an account in ${collection.name}`, inputs, 'Create account', back);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const values = inputs.map(({ name, value }) => [name, name === 'password' ? value : value.trim()]);
      const body = Object.fromEntries(values.filter(([, value]) => value !== ''));
      const made = await busy(form, () => call('POST', collection.create, { body, anonymous: true }));
      if (!made.ok) return refused(made, form);
      const field = collection.signInWith.find((name) => typeof body[name] === 'string') ?? collection.signInWith[0];
      const credentials = { [field]: body[field], password: body.password };
      const signedIn = await busy(form, () => call('POST', collection.auth, { body: credentials, anonymous: true }));
      if (!signedIn.ok) return refused(signedIn, form);
      back();
      const mailed = collection.verify === 'email' ? ' A link to verify your email is on its way.' : '';
      welcome(collection.name, signedIn.data, `Account created.${mailed}`);
    });
    return form;
  }

  /** A forgotten password: restock mails a link when the address is an account's, and answers alike either way. */
  function forgotForm(collection, back) {
    const email = fieldInput('email', { format: 'email' });
    const form = accountForm('forgot', `Reset a password of ${collection.name}`, [email], 'Send reset link', back);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const address = email.value.trim();
      const body = { email: address };
      const result = await busy(form, () => call('POST', `${collection.auth}reset/`, { body, anonymous: true }));
      if (!result.ok) return refused(result, form);
      back();
      say(`If ${address} is the email of an account, a link to reset its password is on its way.`);
    });
    return form;
  }

  /** The reset link's form: a new password, then a sign-in with it. */
  function newPasswordForm(collection, token) {
    const password = fieldInput('password', propertyOf(collection, 'password'));
    password.dataset.label = 'New password';
    const text = `Choose a new password (${collection.name})`;
    const form = accountForm('new-password', text, [password], 'Set password', () => form.remove());
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const body = { token, password: password.value, signIn: true };
      const result = await busy(form, () =>
        call('POST', `${collection.auth}reset/confirm/`, { body, anonymous: true }),
      );
      if (!result.ok) return refused(result, form);
      form.remove();
      if (result.data?.token) return welcome(collection.name, result.data, 'Password changed; you are signed in.');
      say('Password changed: sign in with it.');
      forms.querySelector(`[data-collection="${CSS.escape(collection.name)}"] input`)?.focus();
    });
    forms.before(form);
    password.focus();
  }

  async function offerProviders(collection, place) {
    const result = await call('GET', `${collection.auth}providers/`, { anonymous: true });
    // A 404: no provider is configured for this collection.
    if (!result.ok || !Array.isArray(result.data)) return;
    place.append(
      ...result.data.map(({ name }) =>
        button(`Sign in with ${name}`, () => {
          const back = new URL(location.pathname, location.origin);
          back.searchParams.set('collection', collection.name);
          const query = new URLSearchParams({ redirect: back.href });
          location.assign(`${collection.auth}providers/${encodeURIComponent(name)}/?${query}`);
        }),
      ),
    );
    place.hidden = place.childElementCount === 0 || place.previousElementSibling?.hidden;
  }

  /** Acts on a link from mail or a provider's return, once; the query leaves the address first. */
  async function followLink(collections) {
    if (followed) return;
    followed = true;
    const query = new URLSearchParams(location.search);
    const collection = collections.find((c) => c.name === query.get('collection'));
    if (!collection) return;
    // A token left in the address would stay in the history, and a reload would spend it again.
    history.replaceState(history.state, '', `${location.pathname}${location.hash}`);
    const [action, token, code, error] = ['action', 'token', 'code', 'error'].map((name) => query.get(name));
    if (error) return say(`Signing in with a provider failed: ${PROVIDER_ERRORS[error] ?? error}.`, true);
    if (code) {
      const body = { code };
      const result = await call('POST', `${collection.auth}providers/exchange/`, { body, anonymous: true });
      if (!result.ok) return say(`Signing in with a provider failed: ${describe(result.problem, result.status)}`, true);
      return welcome(collection.name, result.data);
    }
    if (!token) return;
    if (action === 'reset') return newPasswordForm(collection, token);
    const confirmed = {
      verify: ['verify/', 'Your email is verified.'],
      email: ['email/confirm/', 'Your new email is set.'],
    };
    if (!Object.hasOwn(confirmed, action)) return;
    const [path, done] = confirmed[action];
    const result = await call('POST', `${collection.auth}${path}`, { body: { token }, anonymous: true });
    if (!result.ok) return say(describe(result.problem, result.status), true);
    await refresh();
    say(done);
  }

  /** A form of the account panel: a legend, the inputs labelled, a submit and a way back. */
  function accountForm(kind, legend, inputs, submitText, back) {
    const form = Object.assign(document.createElement('form'), { className: `account-form ${kind}` });
    const fieldset = document.createElement('fieldset');
    const submit = Object.assign(button(submitText), { type: 'submit', className: 'primary' });
    const labels = inputs.map((input) => labelled(input.dataset.label ?? capitalize(input.name), input));
    fieldset.append(Object.assign(document.createElement('legend'), { textContent: legend }), ...labels, submit);
    fieldset.append(button('Cancel', back));
    form.append(fieldset);
    return form;
  }

  async function busy(form, send) {
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    form.setAttribute('aria-busy', 'true');
    try {
      return await send();
    } finally {
      submit.disabled = false;
      form.removeAttribute('aria-busy');
    }
  }

  function refused(result, form) {
    say(describe(result.problem, result.status), true);
    form.querySelector('input')?.focus();
  }

  /** The schemas arrived (or could not): sign-up may ask for their fields. */
  function knowSchemas() {
    schemasKnown = true;
    for (const signUp of forms.querySelectorAll('.sign-up-button')) signUp.disabled = false;
  }

  return { offer, followLink, knowSchemas };
}

/** What a sign-up asks: the schema's required text fields, the field that signs in, and the password. */
function signUpFields(collection) {
  const { schema, signInWith } = collection;
  const required = (schema?.required ?? []).filter((name) => propertyOf(collection, name).type === 'string');
  const names = new Set([...required, signInWith[0]]);
  names.delete('password');
  return [...names, 'password'].map((name) => [name, propertyOf(collection, name)]);
}

/** The JSON Schema of a field of the collection's records, as the OpenAPI document gave it (./schema-form.js). */
function propertyOf({ schema }, name) {
  return schema?.properties.find(([field]) => field === name)?.[1] ?? {};
}

function fieldInput(name, property) {
  const input = Object.assign(document.createElement('input'), { name, required: true, spellcheck: false });
  if (name === 'password') Object.assign(input, { type: 'password', autocomplete: 'new-password' });
  else if (property.format === 'email' || name === 'email')
    Object.assign(input, { type: 'email', autocomplete: 'email' });
  if (Number.isInteger(property.maxLength)) input.maxLength = property.maxLength;
  if (Number.isInteger(property.minLength)) input.minLength = property.minLength;
  return input;
}

function button(text, onClick) {
  const made = Object.assign(document.createElement('button'), { type: 'button', textContent: text });
  if (onClick) made.addEventListener('click', onClick);
  return made;
}

export const capitalize = (word) => word.charAt(0).toUpperCase() + word.slice(1);

export function labelled(text, control) {
  const label = document.createElement('label');
  label.append(Object.assign(document.createElement('span'), { textContent: text }), control);
  return label;
}
