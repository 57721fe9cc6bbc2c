// The consent page of an MCP client's sign-in (OAuth): who asks, where the answer goes, what it may do, and the two
// buttons; or, without a session, the e-mail form that signs the user in first.
import { html, type Html } from './html.js';
import { layout } from './layout.js';
import { emailForm } from './dashboard/sign-in-view.js';
import type { ConsentRequest } from '../operations/oauth.js';

const META = {
  title: 'Connect an application',
  description: 'Let an application use your Fetchdown account.',
  path: '/oauth/consent',
  noindex: true,
};

/** What each scope lets a connected application do, as the user reads it. */
const SCOPE_TEXT: Record<string, string> = {
  fetch: 'read web pages, documents and sites for you (fetch, map and crawl)',
  search: 'search the web for you',
};

export function consentPage(base: string, requestId: string, consent: ConsentRequest, email: string): Html {
  return layout(
    META,
    base,
    html`<h1>Connect ${consent.clientName} to Fetchdown</h1>
      <section class="panel narrow" aria-labelledby="consent-h">
        <h2 id="consent-h">${consent.clientName} asks to use your account</h2>
        ${
          consent.clientUrl
            ? html`<p>It identifies itself as <code>${consent.clientUrl}</code>.</p>`
            : html`<p>
                It registered itself under this name, which no one has checked: allow it only if you just added
                Fetchdown to that application.
              </p>`
        }
        <p>Signed in as <strong>${email}</strong>. If you allow it, it may:</p>
        <ul>
          ${consent.scopes.map((scope) => html`<li>${SCOPE_TEXT[scope] ?? scope}</li>`)}
        </ul>
        <p>
          What it uses is charged to your credits, and your usage shows it by name. You can disconnect it at any time in
          the dashboard. Your answer goes back to <strong>${consent.redirectHost}</strong>.
        </p>
        <form method="post" action="/oauth/consent">
          <input type="hidden" name="request" value="${requestId}" />
          <button type="submit" name="decision" value="allow">Allow</button>
          <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
        </form>
      </section>`,
  );
}

export function consentSignInPage(base: string, clientName: string): Html {
  return layout(
    META,
    base,
    html`<h1>Sign in to connect ${clientName}</h1>
      <section id="sign-in" class="panel narrow" aria-labelledby="sign-in-h">
        <h2 id="sign-in-h">Sign in or sign up</h2>
        <p>
          ${clientName} wants to use Fetchdown for you. Enter your e-mail address: we send a sign-in link that works
          once, for 15 minutes. Open it in this browser and you come back here to allow or deny it.
        </p>
        ${emailForm}
      </section>`,
  );
}

export function consentGonePage(base: string): Html {
  return layout(
    META,
    base,
    html`<h1>This request is no longer waiting</h1>
      <p class="notice error" role="alert">
        It was answered already, or it expired (a request waits 10 minutes). Start again from the application.
      </p>`,
  );
}
