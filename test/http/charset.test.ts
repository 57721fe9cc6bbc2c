// Legacy encodings decode correctly from the Content-Type charset, <meta charset> and the BOM.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSiteAndApp } from '../helpers/test-app.js';

const { site, api } = await startSiteAndApp();

const cases: [string, string, string][] = [
  ['/charset/latin1', 'Café crème', 'Déjà vu à la française, naïve façade.'],
  ['/charset/win1252', 'Prices', 'He said “ten euros” and paid 10€'],
  ['/charset/sjis', '日本語のページ', '吾輩は猫である。名前はまだ無い。'],
  ['/charset/gbk', '中文页面', '这是一个用于测试的中文段落。'],
  ['/charset/bom', 'Ünïcödé BOM', 'Straße und Grüße aus Köln.'],
];

for (const [path, title, phrase] of cases) {
  test(`decodes ${path}`, async () => {
    const res = await api.post('/fetch', { url: site.url(path) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.metadata.title, title);
    assert.ok(res.body.markdown.includes(phrase), `${phrase} not in ${res.body.markdown}`);
    assert.ok(!res.body.markdown.includes('\uFEFF'));
    assert.ok(!res.body.markdown.includes('\uFFFD'), 'no replacement characters');
  });
}
