// Issue 14: the CPU work of a fetch runs on extraction threads. Hostile pages answer content or a clear error within
// the deadline while the process keeps answering; a full queue answers 503 with Retry-After; a cache hit never
// reaches a thread; threads are replaced after a deadline and recycled after EXTRACT_WORKER_MAX_TASKS pages.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { HOSTILE_KINDS, startFixtureSite } from '../helpers/fixture-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const site = await startFixtureSite({ after });

/** One sample of a metric from GET /metrics (0 when absent): `name{labels}` as Prometheus writes it. */
async function metric(api: TestApp, sample: string): Promise<number> {
  const text = (await api.get('/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

const RUNNING = 'fetchdown_extraction_tasks_running';
const STARTED = 'fetchdown_extraction_threads_started';

/** Polls /metrics until a page is on an extraction thread; false when `done` came first. */
async function untilExtracting(api: TestApp, done: () => boolean): Promise<boolean> {
  while (!done()) {
    if ((await metric(api, RUNNING)) >= 1) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

// A small CPU limit, so each hostile page ends quickly whichever way it ends; one thread, so tests take one core; a
// wall limit long enough for a page to use that CPU on a loaded machine (extraction-starved tests the wall limit).
const THREADED = {
  EXTRACT_WORKERS: '1',
  EXTRACT_TIMEOUT_MS: '1500',
  EXTRACT_WALL_TIMEOUT_MS: '600000',
  FETCH_TIMEOUT_MS: '20000',
};
// Ordinary pages on a fresh thread run with cold code; on a loaded machine that can pass 1.5 s, which is not what
// the pool's tests are about.
const POOLED = { ...THREADED, EXTRACT_TIMEOUT_MS: '20000' };

describe('hostile pages', () => {
  for (const kind of HOSTILE_KINDS) {
    test(`${kind}: content or 422 extraction_timeout, never a 500`, async (t) => {
      const api = await buildTestApp(t, THREADED);
      const res = await api.post('/fetch', { url: site.url(`/hostile/${kind}`) });
      if (res.status === 200) {
        assert.ok(res.body.markdown.length > 0);
        assert.equal(res.body.metadata.truncated, false);
      } else {
        assert.equal(res.status, 422, res.text);
        assert.equal(res.body.code, 'extraction_timeout');
        assert.match(res.body.detail, /longer than 1500 ms/);
      }
    });
  }

  test('the process answers /health while a hostile page is being extracted', async (t) => {
    // The nested page takes tens of seconds: long enough to be seen running, and stopped at 10 s.
    const api = await buildTestApp(t, { ...THREADED, EXTRACT_TIMEOUT_MS: '10000' });
    const order: string[] = [];
    let fetchDone = false;
    const hostile = api.post('/fetch', { url: site.url('/hostile/nested') }).then((res) => {
      fetchDone = true;
      order.push('fetch');
      return res;
    });
    assert.ok(await untilExtracting(api, () => fetchDone), 'the page was extracted before /metrics could see it');
    const health = await api.get('/health');
    order.push('health');
    assert.equal(health.status, 200);
    // The page was still on its thread after /health answered: the event loop was free while it ran.
    assert.equal(await metric(api, RUNNING), 1);
    const res = await hostile;
    assert.deepEqual(order, ['health', 'fetch']);
    assert.ok(res.status === 200 || res.body.code === 'extraction_timeout', res.text);
  });

  test('a page past the deadline stops with its thread; the next page gets a new thread', async (t) => {
    const api = await buildTestApp(t, { ...THREADED, EXTRACT_TIMEOUT_MS: '100' });
    const started = await metric(api, STARTED);
    const res = await api.post('/fetch', { url: site.url('/hostile/links') });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'extraction_timeout');
    assert.equal(res.body.retry_hint !== undefined, true);
    const next = await api.post('/fetch', { url: site.url('/article'), use_cache: false });
    assert.ok(next.status === 200 || next.body.code === 'extraction_timeout', next.text);
    assert.equal((await metric(api, STARTED)) - started, 2);
  });
});

describe('the pool', () => {
  test('a cache hit never reaches an extraction thread', async (t) => {
    const api = await buildTestApp(t, POOLED);
    const tasks = 'fetchdown_extraction_tasks_total{task="html",outcome="ok"}';
    const before = await metric(api, tasks);
    const first = await api.post('/fetch', { url: site.url('/unique/pool-cache') });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.cache.hit, false);
    const second = await api.post('/fetch', { url: site.url('/unique/pool-cache') });
    assert.equal(second.body.cache.hit, true);
    assert.equal(second.body.markdown, first.body.markdown);
    assert.equal((await metric(api, tasks)) - before, 1);
  });

  test('a selection (include/exclude) of a cached page is extracted on a thread, from the one fetched copy', async (t) => {
    const api = await buildTestApp(t, POOLED);
    const html = 'fetchdown_extraction_tasks_total{task="html",outcome="ok"}';
    const select = 'fetchdown_extraction_tasks_total{task="select",outcome="ok"}';
    const [htmlBefore, selectBefore] = [await metric(api, html), await metric(api, select)];
    const url = site.url('/unique/pool-select');
    assert.equal((await api.post('/fetch', { url })).status, 200);
    const chosen = await api.post('/fetch', { url, include: ['p'] });
    assert.equal(chosen.status, 200, chosen.text);
    assert.equal(chosen.body.fetch_info.selection.included > 0, true, chosen.text);
    assert.equal((await metric(api, html)) - htmlBefore, 1);
    assert.equal((await metric(api, select)) - selectBefore, 1);
  });

  test('an estimate extracts the page it read on a thread', async (t) => {
    const api = await buildTestApp(t, POOLED);
    const extract = 'fetchdown_extraction_tasks_total{task="extract",outcome="ok"}';
    const before = await metric(api, extract);
    const res = await api.get(`/estimate?url=${encodeURIComponent(site.url('/unique/pool-estimate'))}`);
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.estimated_tokens > 0, res.text);
    assert.equal((await metric(api, extract)) - before, 1);
  });

  test('with every thread busy and no room to wait, a fetch answers 503 extraction_busy with Retry-After', async (t) => {
    const api = await buildTestApp(t, { ...THREADED, EXTRACT_QUEUE_MAX: '0', EXTRACT_TIMEOUT_MS: '10000' });
    let fetchDone = false;
    const hostile = api.post('/fetch', { url: site.url('/hostile/nested/busy') }).then((res) => {
      fetchDone = true;
      return res;
    });
    assert.ok(await untilExtracting(api, () => fetchDone), 'the page was extracted before /metrics could see it');
    const res = await api.post('/fetch', { url: site.url('/unique/pool-busy') });
    assert.equal(res.status, 503, res.text);
    assert.equal(res.body.code, 'extraction_busy');
    assert.equal(res.headers.get('retry-after'), '2');
    await hostile;
  });

  test('a thread is replaced after EXTRACT_WORKER_MAX_TASKS pages, and the pages are the same', async (t) => {
    const api = await buildTestApp(t, { ...POOLED, EXTRACT_WORKER_MAX_TASKS: '1' });
    const started = await metric(api, STARTED);
    const pages = [];
    for (const path of ['/article', '/long']) {
      const res = await api.post('/fetch', { url: site.url(path) });
      assert.equal(res.status, 200, res.text);
      pages.push(res.body.markdown);
    }
    assert.equal((await metric(api, STARTED)) - started, 2);
    const again = await api.post('/fetch', { url: site.url('/article'), use_cache: false });
    assert.equal(again.body.markdown, pages[0]);
  });
});
