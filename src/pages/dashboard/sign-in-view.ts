// The dashboard without a session: the e-mail form that starts the magic-link sign-in (and sign-up), and the
// "check your e-mail" page that follows it.
import { html, type Html } from '../html.js';
import { layout } from '../layout.js';

const META = {
  title: 'Dashboard',
  description: 'Sign in to Fetchdown with your e-mail: API keys, usage, credits and billing.',
  path: '/dashboard',
  noindex: true,
};

/** The e-mail form that signs in (and signs up): the dashboard's, and the consent page's before a session. */
export const emailForm: Html = html`<form method="post" action="/dashboard/sign-in">
  <label for="email">E-mail address</label>
  <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" />
  <button type="submit">E-mail me a sign-in link</button>
</form>`;

export function signInPage(base: string, notice?: string): Html {
  return layout(
    META,
    base,
    html`<h1>Your Fetchdown dashboard</h1>
      ${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
      <section id="sign-in" class="panel narrow" aria-labelledby="sign-in-h">
        <h2 id="sign-in-h">Sign in or sign up</h2>
        <p>
          Enter your e-mail address. We send a sign-in link that works once, for 15 minutes; a new address gets a free
          account (no card needed) and its first API key by e-mail as well.
        </p>
        ${emailForm}
      </section>`,
  );
}

export function checkMailPage(base: string, email: string): Html {
  return layout(
    META,
    base,
    html`<h1>Check your e-mail</h1>
      <section class="panel narrow" role="status">
        <p>
          If <strong>${email}</strong> can receive mail, a sign-in link is on its way. Open it on this device and press
          <em>Sign in</em>; it works once, for 15 minutes.
        </p>
        <p><a href="/dashboard">Use another address</a></p>
      </section>`,
  );
}

export function failedPage(base: string, message: string): Html {
  return layout(
    META,
    base,
    html`<h1>That did not work</h1>
      <p class="notice error" role="alert">${message}</p>
      <p><a href="/dashboard">Back to the dashboard</a></p>`,
  );
}
