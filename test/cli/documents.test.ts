// A document read by the fetchdown command (node bin/fetchdown.mjs, the built dist/): an RSS feed from a loopback
// site, its Markdown on stdout and, with --verbose, fetch_info.document_type on stderr.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildIfStale } from '../helpers/build.js';
import { spawnTracked } from '../helpers/children.js';
import { GARDEN_FEED_MARKDOWN, rss2 } from '../helpers/documents/feeds.js';
import { startDocumentSite, type DocumentSite } from '../helpers/document-site.js';
import { REPO_ROOT } from '../helpers/mcp-client.js';

let site: DocumentSite;
const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-cli-documents-'));
before(async () => {
  buildIfStale();
  site = await startDocumentSite({ '/feed': { type: 'application/rss+xml', body: rss2() } });
});
after(async () => {
  await site.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a feed: its Markdown on stdout, document_type rss in the --verbose metadata', async (t) => {
  const cli = spawnTracked(t, process.execPath, ['bin/fetchdown.mjs', site.url('/feed'), '--verbose'], {
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
  assert.equal(cli.stdout(), `${GARDEN_FEED_MARKDOWN}\n`);
  const meta = JSON.parse(stderr);
  assert.equal(meta.fetch_info.document_type, 'rss');
  assert.equal(meta.fetch_info.fetcher_used, 'html');
});
