// Documents read by the fetchdown command (node bin/fetchdown.mjs, the built dist/, where a library that finds its own
// files at run time breaks if it is bundled): an RSS feed, a DOCX, an XLSX and a picture of text (OCR) from a loopback
// site, their Markdown on stdout and, with --verbose, fetch_info.document_type on stderr.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { buildIfStale } from '../helpers/build.js';
import { spawnTracked } from '../helpers/children.js';
import { browserSkip } from '../fetchers/chromium.js';
import { makeDocx, REPORT_SENTENCE } from '../helpers/documents/docx.js';
import { GARDEN_FEED_MARKDOWN, rss2 } from '../helpers/documents/feeds.js';
import { renderTextImages } from '../helpers/documents/scans.js';
import { GARDEN, makeXlsx } from '../helpers/documents/sheets.js';
import { startDocumentSite, type DocumentSite } from '../helpers/document-site.js';
import { REPO_ROOT } from '../helpers/mcp-client.js';

let site: DocumentSite;
const skip = browserSkip();
const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-cli-documents-'));
before(async () => {
  buildIfStale();
  const note = skip ? null : (await renderTextImages([['Tomatoes need six hours of direct sun.']]))[0]!;
  site = await startDocumentSite({
    '/feed': { type: 'application/rss+xml', body: rss2() },
    '/report': { type: 'application/octet-stream', body: await makeDocx() },
    '/garden': { type: 'application/octet-stream', body: await makeXlsx(GARDEN) },
    ...(note && { '/note': { type: 'image/png', body: note.png } }),
  });
});
after(async () => {
  await site.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function read(t: TestContext, path: string): Promise<{ markdown: string; meta: Record<string, any> }> {
  const cli = spawnTracked(t, process.execPath, ['bin/fetchdown.mjs', site.url(path), '--verbose'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      FETCH_ALLOW_PRIVATE_NETWORKS: '1',
      CACHE_URL: 'memory://',
    },
  });
  let stderr = '';
  cli.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = await once(cli.child, 'exit');
  assert.equal(code, 0, cli.output());
  return { markdown: cli.stdout(), meta: JSON.parse(stderr) as Record<string, any> };
}

test('a feed: its Markdown on stdout, document_type rss in the --verbose metadata', async (t) => {
  const { markdown, meta } = await read(t, '/feed');
  assert.equal(markdown, `${GARDEN_FEED_MARKDOWN}\n`);
  assert.equal(meta.fetch_info.document_type, 'rss');
  assert.equal(meta.fetch_info.fetcher_used, 'html');
});

test('a DOCX and an XLSX served as octet-stream, read by the document extractor', async (t) => {
  const docx = await read(t, '/report');
  assert.equal(docx.meta.fetch_info.document_type, 'docx');
  assert.ok(docx.markdown.includes(`${REPORT_SENTENCE}[^1]`), docx.markdown);
  const xlsx = await read(t, '/garden');
  assert.equal(xlsx.meta.fetch_info.document_type, 'xlsx');
  assert.match(xlsx.markdown, /## Harvest 2024\n\n\| Crop \| Kilos \|/);
});

test('a picture of text, read by OCR', { skip }, async (t) => {
  const { markdown, meta } = await read(t, '/note');
  assert.equal(meta.fetch_info.document_type, 'image');
  assert.equal(meta.fetch_info.ocr_pages, 1);
  assert.deepEqual(markdown.toLowerCase().match(/[a-z]+/g), 'tomatoes need six hours of direct sun'.split(' '));
});
