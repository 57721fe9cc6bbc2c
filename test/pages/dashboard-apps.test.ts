// The dashboard's connected applications: an MCP client connected by OAuth over HTTP shows with its name, what it may
// do and its last use, and Disconnect ends its access; a cross-site post and another account's app id change nothing;
// in Chromium the section is accessible under the strict CSP and its button works.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { signIn, signUp } from '../helpers/accounts.js';
import { connectClient, registerClient, startClientSite, type ClientSite } from '../helpers/oauth.js';
import { startSmtpServer, type SmtpSink } from '../helpers/smtp.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { browserSkip } from '../fetchers/chromium.js';
import { accessibilityViolations, launchBrowser, watchPage } from './browser.js';

const PUBLIC_BASE_URL = 'http://fetchdown.test';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const UTC_MINUTE = /\d{4}-\d\d-\d\d \d\d:\d\d UTC/;

interface ListedApp {
  id: number;
  client_id: string;
  client_name: string;
}

describe('dashboard: connected applications', () => {
  let api: TestApp;
  let smtp: SmtpSink;
  let client: ClientSite;
  let cookie: string;
  before(async () => {
    [smtp, client] = await Promise.all([startSmtpServer(), startClientSite()]);
    api = await buildTestApp({ after }, { SMTP_URL: smtp.url, PUBLIC_BASE_URL });
    cookie = await newAccount();
  });
  after(async () => {
    await Promise.all([smtp?.close(), client?.close()]);
  });

  /** A new account, signed in: its session cookie. */
  async function newAccount(): Promise<string> {
    return (await signIn(api, smtp, (await signUp(api)).email)).cookie;
  }

  /** Connects a client of that name (or the one `clientId` names) to the account of `as`: its id and access token. */
  async function connect(name: string, as = cookie, clientId?: string) {
    const id = clientId ?? (await registerClient(api, client.redirectUri, name)).client_id;
    const tokens = await connectClient(api, {
      clientId: id,
      redirectUri: client.redirectUri,
      cookie: as,
      resource: `${PUBLIC_BASE_URL}/mcp`,
    });
    const apps: ListedApp[] = (await api.request('GET', '/auth/apps', undefined, { cookie: as })).body.apps;
    return { app: apps.find((a) => a.client_id === id)!, token: tokens.access_token };
  }

  const callMcp = (token: string) =>
    api.request(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { ...MCP_HEADERS, authorization: `Bearer ${token}` },
    );

  /** The Disconnect form's post, its redirect not followed. */
  async function disconnect(id: number | string, headers: Record<string, string> = {}) {
    const res = await fetch(`${api.base}/dashboard/apps/${id}/disconnect`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...FORM, cookie, ...headers },
      body: '',
    });
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  }

  async function appsSection(as = cookie): Promise<string> {
    const page = await api.request('GET', '/dashboard', undefined, { cookie: as });
    assert.equal(page.status, 200);
    return /<section[^>]*id="apps"[\s\S]*?<\/section>/.exec(page.text)?.[0] ?? '';
  }

  /** The table row of an application, '' when it is not listed. */
  const rowOf = (section: string, id: number) =>
    section.split('<tr>').find((row) => row.includes(`action="/dashboard/apps/${id}/disconnect"`)) ?? '';

  const stillConnected = async (id: number, as = cookie) =>
    ((await api.request('GET', '/auth/apps', undefined, { cookie: as })).body.apps as ListedApp[]).some(
      (a) => a.id === id,
    );

  test("with none connected, the section says how to connect one, with this server's /mcp", async () => {
    const section = await appsSection(await newAccount());
    assert.match(section, /<h2 id="apps-h">Connected applications<\/h2>/);
    assert.match(
      section,
      /No applications connected\. Add <code>http:\/\/fetchdown\.test\/mcp<\/code> as a remote MCP server in Claude, ChatGPT,\s+Cursor or\s+VS Code; it signs you in here\./,
    );
    assert.doesNotMatch(section, /<table/);
  });

  test('a connection shows its name (as text), what it may do, when it connected and its last use', async () => {
    const used = await connect('Agent <b>"One"</b>');
    assert.equal((await callMcp(used.token)).status, 200);
    const unused = await connect('Idle Agent');
    client.document = {
      client_id: client.documentUrl,
      client_name: 'Document Agent',
      redirect_uris: [client.redirectUri],
      token_endpoint_auth_method: 'none',
    };
    const documented = await connect('', cookie, client.documentUrl);

    const section = await appsSection();
    const cells = (id: number) => [...rowOf(section, id).matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => m[1]!.trim());
    const [name, scopes, connected, lastUsed] = cells(used.app.id);
    assert.match(name!, /^Agent &lt;b&gt;&quot;One&quot;&lt;\/b&gt;\s*<form method="post"/);
    assert.equal(scopes, 'read pages and sites, search the web');
    assert.match(connected!, UTC_MINUTE);
    assert.match(lastUsed!, UTC_MINUTE);
    assert.equal(cells(unused.app.id)[3], 'never');
    // A client named by its metadata document shows the document's URL as text: a link could be made to mislead.
    assert.ok(cells(documented.app.id)[0]!.startsWith(`Document Agent<br /><code>${client.documentUrl}</code>`));
    assert.ok(!section.includes('href='), section);
    assert.ok(
      section.indexOf(`/dashboard/apps/${documented.app.id}/`) < section.indexOf(`/dashboard/apps/${used.app.id}/`),
      'newest first',
    );
  });

  test('Disconnect removes the application, and its access token then gets 401 on POST /mcp', async () => {
    const { app, token } = await connect('Short-lived Agent');
    assert.equal((await callMcp(token)).status, 200);
    const res = await disconnect(app.id);
    assert.equal(res.status, 303, res.text);
    assert.equal(res.location, '/dashboard?notice=disconnected');
    const page = await api.request('GET', '/dashboard?notice=disconnected', undefined, { cookie });
    assert.match(page.text, /class="notice" role="status">The application is disconnected: /);
    assert.equal(rowOf(await appsSection(), app.id), '');
    assert.equal(await stillConnected(app.id), false);
    assert.equal((await callMcp(token)).status, 401);
  });

  test('a cross-site post to disconnect is refused (403 cross_site_request) and changes nothing', async () => {
    const { app, token } = await connect('Kept Agent');
    const crossSites: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const crossSite of crossSites) {
      const res = await disconnect(app.id, crossSite);
      assert.equal(res.status, 403, JSON.stringify(crossSite));
      assert.equal(JSON.parse(res.text).code, 'cross_site_request');
    }
    assert.ok(await stillConnected(app.id));
    assert.equal((await callMcp(token)).status, 200);
  });

  test("another account's application cannot be disconnected: an error notice, and the app stays", async () => {
    const { app, token } = await connect('Not Yours Agent');
    const stranger = await newAccount();
    const res = await disconnect(app.id, { cookie: stranger });
    assert.equal(res.status, 200);
    assert.match(
      res.text,
      new RegExp(`class="notice error" role="status">The application could not be disconnected: [^<]*${app.id}`),
    );
    const malformed = await disconnect('not-a-number', { cookie: stranger });
    assert.match(malformed.text, /class="notice error" role="status">The application could not be disconnected: /);
    assert.ok(await stillConnected(app.id));
    assert.equal((await callMcp(token)).status, 200);
  });

  describe('in Chromium', { skip: browserSkip() }, () => {
    let browser: Browser;
    before(async () => {
      browser = await launchBrowser();
    });
    after(() => browser?.close());

    test('with an application listed the dashboard is accessible under the strict CSP; its button disconnects it', async () => {
      const as = await newAccount();
      const { app } = await connect('Browser Agent', as);
      const context = await browser.newContext();
      const [name, value] = as.split('=') as [string, string];
      await context.addCookies([{ name, value, url: api.base }]);
      const page = await context.newPage();
      const watch = watchPage(page, api.base);
      const response = await page.goto(`${api.base}/dashboard`);
      assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'; style-src 'self'/);
      const row = page.locator('#apps tbody tr', { hasText: 'Browser Agent' });
      assert.match(await row.innerText(), /read pages and sites, search the web/);
      assert.deepEqual(await accessibilityViolations(page), []);

      await row.getByRole('button', { name: 'Disconnect Browser Agent' }).click();
      await page.waitForURL(`${api.base}/dashboard?notice=disconnected`);
      assert.equal(await page.locator('#apps tbody tr').count(), 0);
      assert.match(await page.locator('#apps').innerText(), /No applications connected/);
      assert.deepEqual(await accessibilityViolations(page), []);
      assert.equal(await stillConnected(app.id, as), false);
      assert.deepEqual(watch.problems, []);
      await context.close();
    });
  });
});
