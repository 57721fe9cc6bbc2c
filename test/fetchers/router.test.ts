// The router's table with stand-in fetchers and canned responses: which finding leads where, what moves on to the
// next fetcher (and what never does), what is answered when every fetcher failed, and where attempts are reported.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FetchFailure } from '../../src/errors.js';
import { createHtmlFetcher } from '../../src/fetchers/html.js';
import { createDocumentFetcher } from '../../src/fetchers/documents/fetcher.js';
import { documentOptions } from '../../src/fetchers/index.js';
import { loadConfig } from '../../src/config.js';
import { createRouter } from '../../src/fetchers/router.js';
import type { Fetcher, FetcherName, FetchOutcome } from '../../src/fetchers/types.js';
import { createAddressPolicy } from '../../src/net/guard.js';
import type { HttpOutcome, SafeClient } from '../../src/net/safe-client.js';
import { APP_SHELL_HTML } from '../helpers/fixture-fetchers.js';

const ARTICLE = `<html><head><title>Real</title></head><body><article><h1>Real</h1>${'<p>Plenty of real words on this page for anyone. </p>'.repeat(12)}</article></body></html>`;

/** A client that answers every URL with one canned response, and counts requests. */
function cannedClient(status: number, body: string, headers: Record<string, string> = { 'content-type': 'text/html' }) {
  let requests = 0;
  const client: SafeClient = {
    async request(url): Promise<HttpOutcome> {
      requests++;
      const buffer = Buffer.from(body);
      return {
        ok: true,
        response: {
          url,
          status,
          headers,
          body: buffer,
          bodyTruncated: false,
          redirects: 0,
          bytes: buffer.length,
          wireBytes: buffer.length,
        },
      };
    },
    check: async () => null,
    close: async () => undefined,
  };
  return { client, requests: () => requests };
}

/** A fetcher that answers what it is told, or is unavailable. */
function stand(name: FetcherName, answer: FetchOutcome | 'unavailable'): Fetcher & { calls: number } {
  const fetcher = {
    name,
    calls: 0,
    unavailable: () => (answer === 'unavailable' ? 'not here' : null),
    async fetch(url: URL): Promise<FetchOutcome> {
      fetcher.calls++;
      if (answer === 'unavailable') throw new Error('called while unavailable');
      return answer.ok ? { ok: true, page: { ...answer.page, url: url.href } } : answer;
    },
  };
  return fetcher;
}

const page = (markdown: string): FetchOutcome => ({
  ok: true,
  page: {
    url: '',
    statusCode: 200,
    contentType: 'text/html',
    title: null,
    description: null,
    language: null,
    markdown,
    text: markdown,
    redirects: 0,
    bytes: 1,
    bodyTruncated: false,
  },
});
const failure = (code: FetchFailure['code']): FetchOutcome => ({
  ok: false,
  failure: { code, detail: `${code} detail`, retryable: false },
});

const options = documentOptions(loadConfig({}));

function router(client: SafeClient, browser: Fetcher, reader: Fetcher) {
  return createRouter({
    client,
    policy: createAddressPolicy({ allowPrivateNetworks: true }),
    fetchers: {
      html: createHtmlFetcher({ client, limits: options.limits }),
      pdf: createDocumentFetcher({ client, options }),
      browser,
      reader,
    },
    robots: null,
  });
}

const url = new URL('http://127.0.0.1:9/page');
const trail = (attempts: { fetcher: string; outcome: string }[]) => attempts.map((a) => `${a.fetcher}:${a.outcome}`);

describe('router', () => {
  test('a page with content: html, one request, no attempts on the page', async () => {
    const { client, requests } = cannedClient(200, ARTICLE);
    const browser = stand('browser', page('never'));
    const routed = await router(client, browser, stand('reader', 'unavailable')).fetch(url);
    assert.equal(routed.fetcher, 'html');
    assert.ok(routed.outcome.ok && routed.outcome.page.attempts === undefined);
    assert.equal(requests(), 1);
    assert.equal(browser.calls, 0);
  });

  test('app shell: browser fails with a timeout, the reader gets it', async () => {
    const { client } = cannedClient(200, APP_SHELL_HTML);
    const routed = await router(
      client,
      stand('browser', failure('upstream_timeout')),
      stand('reader', page('# From reader\n\ntext')),
    ).fetch(url);
    assert.equal(routed.fetcher, 'reader');
    assert.deepEqual(trail(routed.attempts), ['html:app_shell', 'browser:upstream_timeout', 'reader:ok']);
    assert.ok(routed.outcome.ok);
    assert.deepEqual(trail(routed.outcome.page.attempts ?? []), trail(routed.attempts));
  });

  test('blocked_url never moves on: the reader is not asked to fetch what the guard refused', async () => {
    const { client } = cannedClient(200, APP_SHELL_HTML);
    const reader = stand('reader', page('leak'));
    const routed = await router(client, stand('browser', failure('blocked_url')), reader).fetch(url);
    assert.ok(!routed.outcome.ok);
    assert.equal(routed.outcome.failure.code, 'blocked_url');
    assert.equal(reader.calls, 0);
    assert.deepEqual(trail(routed.outcome.failure.extra?.attempts as never), ['html:app_shell', 'browser:blocked_url']);
  });

  test('challenge and refusal go to the reader; without one, blocked_by_site and the site status', async () => {
    const challenge = cannedClient(403, '<title>Just a moment...</title>', {
      'content-type': 'text/html',
      'cf-mitigated': 'challenge',
    }).client;
    assert.equal(
      (await router(challenge, stand('browser', 'unavailable'), stand('reader', page('# R\n\nok'))).fetch(url)).fetcher,
      'reader',
    );
    const blocked = await router(challenge, stand('browser', 'unavailable'), stand('reader', 'unavailable')).fetch(url);
    assert.ok(!blocked.outcome.ok && blocked.outcome.failure.code === 'blocked_by_site');
    const refused = await router(
      cannedClient(429, 'slow down').client,
      stand('browser', 'unavailable'),
      stand('reader', 'unavailable'),
    ).fetch(url);
    assert.ok(
      !refused.outcome.ok &&
        refused.outcome.failure.code === 'upstream_status' &&
        refused.outcome.failure.upstreamStatus === 429,
    );
  });

  test('errors other than refusals never reach a fallback', async () => {
    const reader = stand('reader', page('# R\n\nok'));
    const routed = await router(cannedClient(500, 'oops').client, stand('browser', page('x')), reader).fetch(url);
    assert.ok(!routed.outcome.ok && routed.outcome.failure.code === 'upstream_status');
    assert.equal(reader.calls, 0);
  });

  test('forced fetchers: no fallback, and the browser is not asked for a URL the guard refuses', async () => {
    const { client, requests } = cannedClient(200, ARTICLE);
    const browser = stand('browser', failure('upstream_timeout'));
    const reader = stand('reader', page('# R\n\nok'));
    const forced = await router(client, browser, reader).fetch(url, { fetcher: 'browser' });
    assert.ok(!forced.outcome.ok && forced.outcome.failure.code === 'upstream_timeout');
    assert.equal(reader.calls, 0);
    assert.equal(requests(), 0, 'no GET of our own for a forced browser');
    const guarded = createRouter({
      client,
      policy: createAddressPolicy({ allowPrivateNetworks: false }),
      fetchers: {
        html: createHtmlFetcher({ client, limits: options.limits }),
        pdf: createDocumentFetcher({ client, options }),
        browser,
        reader,
      },
      robots: null,
    });
    const refused = await guarded.fetch(url, { fetcher: 'browser' });
    assert.ok(!refused.outcome.ok && refused.outcome.failure.code === 'blocked_url');
    assert.equal(browser.calls, 1, 'only the earlier, allowed call');
  });
});
