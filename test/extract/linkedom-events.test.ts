// patches/linkedom+*.patch makes linkedom create a node's listener map on its first addEventListener instead of in
// every node's constructor (a WeakMap entry and a Map per node: ~30 % of extraction time, BENCHMARKS.md). Events
// must behave as before; npm ci (prepare) applies the patch and fails if it no longer applies.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { DOMParser } from 'linkedom';

const document = new DOMParser().parseFromString('<html><body><div><p>One</p></div></body></html>', 'text/html');

test('the lazy listener map is what node_modules holds (the patch was applied)', () => {
  const source = readFileSync(
    createRequire(import.meta.url)
      .resolve('linkedom')
      .replace(/cjs[/\\]index\.js$/, 'esm/interface/event-target.js'),
    'utf8',
  );
  assert.match(source, /constructor\(\) \{\}/);
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
