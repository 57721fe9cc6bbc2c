// With EXTRACT_WORKERS_WARM, a server starts that many extraction threads and loads their module at start-up, before
// any request asks for one, so the first uncached fetches do not pay for thread start-up. (Without it, none start
// before a page needs one: test/http/idle-server.test.ts.)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildIfStale } from '../helpers/build.js';
import { startServerProcess } from '../helpers/server-process.js';

const POLLS = 1200; // a loaded machine may take a while to load two threads; without warming they never start

test('fetchdown serve with EXTRACT_WORKERS_WARM has its extraction threads ready before the first fetch', async (t) => {
  buildIfStale();
  const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-warm-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServerProcess(t, { DATA_DIR: dataDir, EXTRACT_WORKERS: '2', EXTRACT_WORKERS_WARM: '2' });
  const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  let metrics = '';
  for (let poll = 0; poll < POLLS && gauge(metrics, 'fetchdown_extraction_threads_ready') < 2; poll++) {
    if (poll > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    metrics = await (await fetch(`${server.base}/metrics`)).text();
  }
  assert.equal(gauge(metrics, 'fetchdown_extraction_threads_ready'), 2, metrics);
  assert.equal(gauge(metrics, 'fetchdown_extraction_threads_started'), 2);
  assert.doesNotMatch(metrics, /^fetchdown_extraction_tasks_total\{/m); // no page has been extracted
});
