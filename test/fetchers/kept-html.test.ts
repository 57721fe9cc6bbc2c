// The HTML a page is extracted from is kept for later selections: the extraction thread compresses it and hands back
// the bytes (fetchers/kept-html.ts), never the HTML itself, and a selection's thread reads them back.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createConversions } from '../../src/fetchers/conversions.js';
import { unpackHtml } from '../../src/fetchers/kept-html.js';
import type { HttpResponse } from '../../src/net/safe-client.js';
import { loadConfig } from '../../src/config.js';
import { documentOptions } from '../../src/fetchers/index.js';

const OPTIONS = {
  queueMax: 10,
  timeoutMs: 60_000,
  wallTimeoutMs: 600_000,
  maxTasks: 100,
  heapMb: 256,
  nice: 0,
  documents: documentOptions(loadConfig({})),
};
const threads = createConversions({ ...OPTIONS, workers: 1 });
const here = createConversions({ ...OPTIONS, workers: 0 });
after(() => threads.close());

const HTML =
  '<!doctype html><html><head><title>Kept</title></head><body><article><h1>Kept</h1>' +
  '<section id="one"><p>The first section says what the page is about, at some length, for the reader.</p></section>' +
  '<section id="two"><p>The second section says something else again, also at some length, for the reader.</p>' +
  '</section><p>Grüße, and a closing line of the article itself.</p></article></body></html>';

function response(body: string): HttpResponse {
  const bytes = Buffer.from(body);
  return {
    url: new URL('https://example.org/kept'),
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: bytes,
    bodyTruncated: false,
    redirects: 0,
    bytes: bytes.length,
    wireBytes: bytes.length,
  };
}

for (const [where, conversions] of [
  ['on a thread', threads],
  ['in this thread', here],
] as const) {
  test(`a converted page carries its HTML compressed, and a selection reads it back (${where})`, async () => {
    const outcome = await conversions.html(response(HTML));
    assert.ok(outcome.ok);
    const { htmlBrotli } = outcome.page;
    assert.ok(htmlBrotli instanceof Uint8Array);
    assert.ok(!('html' in outcome.page), 'the HTML string does not travel with the page');
    assert.equal(unpackHtml(htmlBrotli), HTML);
    const selected = await conversions.select(htmlBrotli, outcome.page.url, { include: ['#two'], exclude: [] });
    assert.ok(selected.ok);
    assert.match(selected.content.markdown, /second section/);
    assert.doesNotMatch(selected.content.markdown, /first section/);
  });

  test(`a rendered page's HTML comes back compressed only when it is to be kept (${where})`, async () => {
    const kept = await conversions.extract(HTML, 'https://example.org/kept', true);
    assert.ok(kept.ok);
    assert.equal(unpackHtml(kept.content.htmlBrotli!), HTML);
    const notKept = await conversions.extract(HTML, 'https://example.org/kept');
    assert.ok(notKept.ok);
    assert.equal(notKept.content.htmlBrotli, undefined);
  });
}

test('an empty page is a failure, with nothing kept', async () => {
  const outcome = await threads.html(response('<html><head><title>Empty</title></head><body></body></html>'));
  assert.equal(outcome.ok, false);
});
