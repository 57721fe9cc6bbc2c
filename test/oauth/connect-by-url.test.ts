// An MCP client connects to Fetchdown by its URL alone, as Claude, ChatGPT, Cursor and VS Code do: the official SDK
// client's OAuth flow (discovery from the 401, registration, PKCE) with its user signing in by magic link and
// consenting in Chromium, then a tool call, a refresh once the access token has expired, and revocation, after which
// the SDK cannot call again without its user. On SQLite and Postgres.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser } from 'playwright-core';
import { uniqueEmail } from '../helpers/accounts.js';
import { databaseEnv, DATABASES } from '../helpers/databases.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { MemoryOAuthProvider, postForm, startClientSite, type ClientSite } from '../helpers/oauth.js';
import { signInLink, startSmtpServer, type SmtpSink } from '../helpers/smtp.js';
import { buildTestApp } from '../helpers/test-app.js';
import { browserSkip } from '../fetchers/chromium.js';
import { accessibilityViolations, launchBrowser, watchPage } from '../pages/browser.js';
import { freePort } from '../topology/children.js';

const HOUR = 3_600_000;

describe('an MCP client connects by URL alone (the SDK client in Chromium)', { skip: browserSkip() }, () => {
  let browser: Browser;
  let smtp: SmtpSink;
  let site: FixtureSite;
  let clientSite: ClientSite;
  before(async () => {
    [browser, smtp, site, clientSite] = await Promise.all([
      launchBrowser(),
      startSmtpServer(),
      startFixtureSite(),
      startClientSite(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await Promise.all([smtp?.close(), site?.close(), clientSite?.close()]);
  });

  for (const database of DATABASES) {
    test(`on ${database.name}: discovery, registration, sign-in, consent, a tool call, refresh, revocation`, async (t) => {
      const env = await databaseEnv(t, database);
      if (!env) return;
      let offset = 0;
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const api = await buildTestApp(
        t,
        { ...env, SMTP_URL: smtp.url, PORT: String(port), PUBLIC_BASE_URL: base },
        { clock: { now: () => Date.now() + offset } },
      );
      const provider = new MemoryOAuthProvider(clientSite.redirectUri, 'Test Desktop Agent');
      const connect = async () => {
        const client = new Client({ name: 'oauth-test', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }));
        t.after(() => client.close());
        return client;
      };

      // The 401 starts the flow: the SDK discovers the server, registers, and sends its user to sign in.
      await assert.rejects(connect(), UnauthorizedError);
      assert.ok(provider.client?.client_id, 'the client registered');
      const [authorizationUrl] = provider.authorizationUrls;
      assert.equal(authorizationUrl?.origin + authorizationUrl!.pathname, `${base}/oauth/authorize`);
      assert.equal(authorizationUrl!.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(authorizationUrl!.searchParams.get('resource'), `${base}/mcp`);

      // The user signs in by e-mail and consents, in a browser.
      const context = await browser.newContext();
      t.after(() => context.close());
      const page = await context.newPage();
      const watch = watchPage(page, base, [clientSite.base]);
      const email = uniqueEmail('oauth');
      await page.goto(authorizationUrl!.href);
      await page.getByRole('heading', { name: 'Sign in to connect Test Desktop Agent' }).waitFor();
      await page.getByLabel('E-mail address').fill(email);
      await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
      await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
      const mail = await smtp.waitFor(email, (m) => m.subject === 'Sign in to Fetchdown');
      await page.goto(signInLink(mail).url);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Connect Test Desktop Agent to Fetchdown' }).waitFor();
      const consentText = await page.locator('main').innerText();
      assert.match(consentText, /registered itself under this name, which no one has checked/);
      assert.match(consentText, /read web pages, documents and sites[\s\S]*search the web/);
      assert.deepEqual(await accessibilityViolations(page), []);
      const callback = clientSite.nextCallback();
      await page.getByRole('button', { name: 'Allow' }).click();
      const query = await callback;
      assert.equal(query.get('state'), authorizationUrl!.searchParams.get('state'));
      assert.deepEqual(watch.problems, []);

      // The code becomes tokens, and the tools answer.
      const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
      await transport.finishAuth(query.get('code')!);
      assert.equal(provider.saved.length, 1);
      const client = await connect();
      const fetched = await client.callTool({ name: 'fetch_url', arguments: { url: site.url('/article') } });
      assert.equal(fetched.isError, undefined, JSON.stringify(fetched.content));
      assert.match((fetched.structuredContent as { markdown: string }).markdown, /tomato/i);

      // An hour later the access token has expired: the SDK refreshes (the refresh token rotates) and goes on.
      offset += 2 * HOUR;
      const later = await client.callTool({ name: 'estimate_tokens', arguments: { url: site.url('/article') } });
      assert.equal(later.isError, undefined, JSON.stringify(later.content));
      assert.equal(provider.saved.length, 2, 'refreshed once');
      assert.notEqual(provider.saved[1]!.refresh_token, provider.saved[0]!.refresh_token);

      // Revoked, the connection ends: the next call is 401, the refresh fails, and the SDK needs its user again.
      const revoked = await postForm(api, '/oauth/revoke', {
        client_id: provider.client.client_id,
        token: provider.saved[1]!.refresh_token!,
      });
      assert.equal(revoked.status, 200, revoked.text);
      const raw = await api.request(
        'POST',
        '/mcp',
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        {
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${provider.saved[1]!.access_token}`,
        },
      );
      assert.equal(raw.status, 401);
      await assert.rejects(client.listTools(), UnauthorizedError);
      assert.equal(provider.authorizationUrls.length, 2, 'the SDK starts a new sign-in');

      await api.services.accounts.credits.flush();
      const rows = await api.services.store.db
        .selectFrom('ledger')
        .select(['operation', 'client_id'])
        .where('client_id', '=', provider.client.client_id)
        .execute();
      assert.deepEqual(rows.map((r) => r.operation).sort(), ['estimate', 'fetch']);
    });
  }
});
