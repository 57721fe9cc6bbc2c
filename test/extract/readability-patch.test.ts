// patches/@mozilla+readability+*.patch: Readability reads a node's text for its byline check only when the node names
// a byline (it read the text of every node, quadratic on deep pages), and reads a node's inline style only when it has
// a style attribute (linkedom built a style object per node). Bylines and hidden nodes must be found as before.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { Readability } from '@mozilla/readability';
import { DOMParser } from 'linkedom';

const PROSE = '<p>' + 'A sentence of the article that goes on long enough to count as prose. '.repeat(12) + '</p>';

function read(body: string) {
  const doc = new DOMParser().parseFromString(
    `<html><head><title>T</title></head><body>${body}</body></html>`,
    'text/html',
  );
  return new Readability(doc as unknown as Document).parse();
}

test('the patch is what node_modules holds', () => {
  const source = readFileSync(createRequire(import.meta.url).resolve('@mozilla/readability/Readability.js'), 'utf8');
  assert.match(source, /var style = node\.hasAttribute\("style"\) \? node\.style : null;/);
});

test('bylines are still found by rel, itemprop and class, and a long one is not a byline', () => {
  assert.equal(
    read(`<article><a rel="author" href="/x">Ann Writer</a>${PROSE}${PROSE}</article>`)?.byline,
    'Ann Writer',
  );
  const itemprop = `<article><span itemprop="author">Bo Author</span>${PROSE}${PROSE}</article>`;
  assert.equal(read(itemprop)?.byline, 'Bo Author');
  assert.equal(read(`<article><p class="byline">By Cy</p>${PROSE}${PROSE}</article>`)?.byline, 'By Cy');
  const long = `<article><p class="byline">${'word '.repeat(30)}</p>${PROSE}${PROSE}</article>`;
  assert.equal(read(long)?.byline ?? null, null);
});

test('nodes hidden by inline style or attribute are left out, styled visible ones kept', () => {
  const article = read(
    `<article>${PROSE}<p style="display: none">Hidden by display.</p><p style="visibility:hidden">Hidden by ` +
      `visibility.</p><p hidden>Hidden by attribute.</p><p style="color: red">Shown in red.</p>${PROSE}</article>`,
  );
  assert.ok(article);
  assert.match(article.textContent ?? '', /Shown in red\./);
  assert.doesNotMatch(article.textContent ?? '', /Hidden by/);
});
