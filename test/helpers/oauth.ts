// OAuth helpers for tests: a client's own little web server (its metadata document and its redirect URI, which
// records what comes back), PKCE pairs, registration, authorization, consent (with a session cookie) and the code's
// exchange over plain HTTP (a connected application in one call), and the client side of the SDK's flow.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { TestApp } from './test-app.js';

export interface ClientSite {
  base: string;
  redirectUri: string;
  /** The URL of the metadata document this site serves (a Client ID Metadata Document). */
  documentUrl: string;
  /** What the document says; set before it is read. */
  document: object;
  /** Requests the document had. */
  documentReads: number;
  /** The query of the next request to the redirect URI. */
  nextCallback(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export async function startClientSite(): Promise<ClientSite> {
  const waiting: ((query: URLSearchParams) => void)[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/client.json') {
      site.documentReads++;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(site.document));
      return;
    }
    if (url.pathname === '/callback') {
      waiting.shift()?.(url.searchParams);
      response.writeHead(200, { 'content-type': 'text/html' }).end('<title>Connected</title><p>You can close this.');
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const site: ClientSite = {
    base,
    redirectUri: `${base}/callback`,
    documentUrl: `${base}/client.json`,
    document: {},
    documentReads: 0,
    nextCallback: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return site;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** POSTs a form (application/x-www-form-urlencoded), as OAuth clients call the token and revocation endpoints. */
export function postForm(api: TestApp, path: string, form: Record<string, string>) {
  return api.request('POST', path, new URLSearchParams(form).toString(), {
    'content-type': 'application/x-www-form-urlencoded',
  });
}

/**
 * GET /oauth/authorize with `params` (redirects not followed): the consent page's URL when the request is accepted,
 * else the response itself (a JSON error, or a redirect to the client with one).
 */
export async function authorize(api: TestApp, params: Record<string, string>) {
  const response = await fetch(`${api.base}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
  const location = response.headers.get('location');
  return { status: response.status, location, body: location ? undefined : await response.json() };
}

/** The signed-in user allows (or denies) the request on the consent page; where the browser would go next. */
export async function consent(api: TestApp, consentPath: string, cookie: string, allow = true): Promise<URL> {
  const page = await fetch(api.base + consentPath, { headers: { cookie } });
  assert.equal(page.status, 200);
  const id = new URL(consentPath, api.base).searchParams.get('request')!;
  const answer = await fetch(`${api.base}/oauth/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: api.base },
    body: new URLSearchParams({ request: id, decision: allow ? 'allow' : 'deny' }),
  });
  assert.equal(answer.status, 303, await answer.text());
  return new URL(answer.headers.get('location')!);
}

/** Registers a client by RFC 7591 (Fetchdown makes it a public one): the registration's answer. */
export async function registerClient(api: TestApp, redirectUri: string, name = 'Test Agent') {
  const res = await api.request('POST', '/oauth/register', {
    client_name: name,
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'client_secret_post',
  });
  assert.equal(res.status, 201, res.text);
  return res.body as { client_id: string; token_endpoint_auth_method: string; client_secret?: string };
}

/**
 * Connects a client to the account of `cookie`: authorization with PKCE for `resource` (the server's /mcp), the user's
 * consent and the code's exchange. The token response.
 */
export async function connectClient(
  api: TestApp,
  {
    clientId,
    redirectUri,
    cookie,
    resource,
    scope,
  }: { clientId: string; redirectUri: string; cookie: string; resource: string; scope?: string },
) {
  const { verifier, challenge } = pkcePair();
  const asked = await authorize(api, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'xyz',
    resource,
    ...(scope ? { scope } : {}),
  });
  assert.equal(asked.status, 302, JSON.stringify(asked.body));
  assert.match(asked.location!, /^\/oauth\/consent\?request=/);
  const back = await consent(api, asked.location!, cookie);
  assert.equal(back.origin + back.pathname, redirectUri);
  assert.equal(back.searchParams.get('state'), 'xyz');
  const token = await postForm(api, '/oauth/token', {
    grant_type: 'authorization_code',
    client_id: clientId,
    code: back.searchParams.get('code')!,
    code_verifier: verifier,
    redirect_uri: redirectUri,
    resource,
  });
  assert.equal(token.status, 200, token.text);
  return token.body as {
    access_token: string;
    refresh_token: string;
    token_type: string;
    expires_in: number;
    scope: string;
  };
}

/**
 * An MCP client's side of OAuth (the SDK's OAuthClientProvider), kept in memory: it registers dynamically, and where
 * the SDK would send its user to sign in it records the URL for the test to open in a browser.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  /** Every token response it was given, in order (the SDK reads the newest, until told it is no good). */
  saved: OAuthTokens[] = [];
  authorizationUrls: URL[] = [];
  private verifier = '';
  private current: OAuthTokens | undefined;

  constructor(
    readonly redirectUrl: string,
    private readonly name: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation = () => this.client;
  saveClientInformation = (client: OAuthClientInformationMixed) => void (this.client = client);
  tokens = () => this.current;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved.push(tokens);
    this.current = tokens;
  };
  /** The SDK drops what the server refused (a revoked refresh token: 'tokens') and starts over. */
  invalidateCredentials = (scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') => {
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  };
  redirectToAuthorization = (url: URL) => void this.authorizationUrls.push(url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}
