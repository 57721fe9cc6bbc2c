// JSON through POST /fetch: a short document fenced as it came; a long one indented and cut along its structure, so
// every part read with max_tokens ends between two elements and the parts together are the whole document.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startDocumentSite, type DocumentSite } from '../helpers/document-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const PLANTS = Array.from({ length: 300 }, (_, i) => ({
  id: i,
  name: `Plant ${i}`,
  needs: { sun_hours: 4 + (i % 5), water: i % 2 ? 'weekly' : 'twice a week' },
}));

/** The JSON inside every fence of `markdown`, joined: what a reader of the fences would parse. */
const fencedJson = (markdown: string) =>
  [...markdown.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => match[1]).join('\n');

let site: DocumentSite;
let api: TestApp;
before(async () => {
  site = await startDocumentSite({
    '/plants.json': { type: 'application/json', body: JSON.stringify(PLANTS) },
    '/one.json': { type: 'application/json', body: '{"name":"Tomato","sun_hours":6}' },
  });
  api = await buildTestApp({ after });
});
after(() => site.close());

test('a short JSON document is one fence, as it came', async () => {
  const res = await api.post('/fetch', { url: site.url('/one.json') });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.fetch_info.document_type, 'json');
  assert.equal(res.body.markdown, '```json\n{"name":"Tomato","sun_hours":6}\n```');
});

test('a long JSON array is indented fences of whole elements; read in parts, each ends between two', async () => {
  const whole = await api.post('/fetch', { url: site.url('/plants.json') });
  assert.equal(whole.status, 200, whole.text);
  assert.deepEqual(JSON.parse(fencedJson(whole.body.markdown)), PLANTS);
  assert.ok(whole.body.markdown.split('```json').length > 5, 'several fences');

  const parts: string[] = [];
  let res = await api.post('/fetch', { url: site.url('/plants.json'), max_tokens: 400 });
  for (;;) {
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.markdown.endsWith('```'), `a part ends with its fence: ${res.body.markdown.slice(-80)}`);
    parts.push(res.body.markdown);
    if (!res.body.next_cursor) break;
    res = await api.post('/fetch', { url: site.url('/plants.json'), max_tokens: 400, cursor: res.body.next_cursor });
  }
  assert.ok(parts.length > 3, `${parts.length} parts`);
  assert.deepEqual(JSON.parse(fencedJson(parts.join('\n\n'))), PLANTS, 'every element once, in order');
});
