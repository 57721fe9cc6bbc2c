// patches/linkedom+*.patch makes linkedom create a node's listener map on its first addEventListener instead of in
// every node's constructor (a WeakMap entry and a Map per node: ~30 % of extraction time), keep each selector it
// compiles instead of compiling it on every querySelectorAll, matches and closest (~20 %), and build a parsed
// element's classList when something first reads it rather than for every element with a class
// (docs/benchmarks-log.md).
// Events, selectors and classes must behave as before; npm ci (prepare) applies the patch and fails if it no longer
// applies.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { DOMParser } from 'linkedom';

const linkedomFile = (path: string) =>
  readFileSync(
    createRequire(import.meta.url)
      .resolve('linkedom')
      .replace(/cjs[/\\]index\.js$/, path),
    'utf8',
  );

const document = new DOMParser().parseFromString('<html><body><div><p>One</p></div></body></html>', 'text/html');

test('the lazy listener map and the kept selectors are what node_modules holds (the patch was applied)', () => {
  assert.match(linkedomFile('esm/interface/event-target.js'), /constructor\(\) \{\}/);
  assert.match(linkedomFile('esm/shared/matches.js'), /cacheResults: false/);
  assert.doesNotMatch(linkedomFile('esm/shared/parse-from-string.js'), /element\.className = value/);
});

test('listeners still fire, bubble, stop and come off', () => {
  const div = document.querySelector('div')!;
  const p = document.querySelector('p')!;
  const heard: string[] = [];
  const onP = () => heard.push('p');
  p.addEventListener('ping', onP);
  div.addEventListener('ping', () => heard.push('div'));
  p.dispatchEvent(new document.defaultView.Event('ping', { bubbles: true }));
  p.removeEventListener('ping', onP);
  p.dispatchEvent(new document.defaultView.Event('ping', { bubbles: true }));
  assert.deepEqual(heard, ['p', 'div', 'div']);
});

test('removing a listener from a node that never had one is a no-op', () => {
  const fresh = document.createElement('span', {});
  assert.doesNotThrow(() => fresh.removeEventListener('ping', () => {}));
  assert.equal(fresh.dispatchEvent(new document.defaultView.Event('ping')), true);
});

const SELECTORS = ['section p', 'section :has(b) > span', 'div:not(.gone) span', 'p + p', 'main > section:first-child'];
const SHAPE =
  '<main><section><p><b>bold</b><span>one</span></p><p>two</p></section>' +
  '<div class="kept"><span>three</span></div></main>';
const parse = (html: string) => new DOMParser().parseFromString(`<html><body>${html}</body></html>`, 'text/html');
const found = (
  root: { querySelectorAll(selector: string): Iterable<{ textContent: string | null }> },
  selector: string,
) => [...root.querySelectorAll(selector)].map((element) => element.textContent);

test('a selector asked again after the document changed matches the document as it is now', () => {
  const changing = parse(SHAPE);
  for (const selector of SELECTORS) found(changing, selector);
  changing.querySelector('b').remove();
  changing.querySelector('div').className = 'gone';
  changing.querySelector('section').append(changing.createElement('p', {}));
  const fresh = parse(changing.body.innerHTML);
  for (const selector of SELECTORS) assert.deepEqual(found(changing, selector), found(fresh, selector), selector);
  assert.deepEqual(found(changing, 'section :has(b) > span'), []);
  const span = changing.querySelector('div span');
  assert.equal(span.matches('div:not(.gone) span'), false);
  assert.equal(span.closest('div:not(.gone)'), null);
});

test(':scope selectors are resolved against the element they are asked of', () => {
  const page = parse('<section id="a"><p>a1</p><div><p>deep</p></div></section><section id="b"><p>b1</p></section>');
  const [a, b] = page.querySelectorAll('section');
  assert.deepEqual(found(a, ':scope > p'), ['a1']);
  assert.deepEqual(found(b, ':scope > p'), ['b1']);
});

test('selectors in an XML document keep their case', () => {
  const xml = new DOMParser().parseFromString('<root><Item>x</Item><item>y</item></root>', 'text/xml');
  assert.deepEqual(found(xml, 'Item'), ['x']);
  assert.equal(found(parse('<Item>z</Item>'), 'item').length, 1);
});

test('a parsed class attribute reads, matches and changes as before', () => {
  const page = parse('<p class="  a\tb  a ">one</p><p class="">two</p><p>three</p>');
  const [spaced, empty, none] = page.querySelectorAll('p');
  assert.equal(spaced.className, 'a b');
  assert.equal(spaced.getAttribute('class'), 'a b');
  assert.deepEqual([...spaced.classList], ['a', 'b']);
  assert.equal(spaced.classList.contains('b'), true);
  assert.equal(empty.className, '');
  assert.equal(none.hasAttribute('class'), false);
  // Serialised as written, as browsers do (linkedom used to write the tokens back at parse time).
  assert.equal(spaced.outerHTML, '<p class="  a\tb  a ">one</p>');
  assert.deepEqual(found(page, '.a.b'), ['one']);
  assert.deepEqual(found(page, '[class~="b"]'), ['one']);
  spaced.classList.remove('a');
  assert.deepEqual(found(page, '.a'), []);
  spaced.setAttribute('class', 'c');
  assert.deepEqual([...spaced.classList], ['c']);
  assert.deepEqual(found(page, '.c'), ['one']);
});
