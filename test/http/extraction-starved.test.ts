// Issue 31: the server's load is never the page's fault. With this process pinned to one core beside busy loops and the
// extraction thread at the lowest priority, small pages and a small PDF are served or answered 503 server_busy with
// Retry-After (not cached, not billed), never 422; a hostile page still ends in 422 extraction_timeout once its own
// CPU reaches its limit. The CPU a thread has used is read from Linux's /proc; elsewhere the limit is wall time, so
// Linux only.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { after, before, describe, test, type TestContext } from 'node:test';
import { signUp, withKey } from '../helpers/accounts.js';
import { spawnTracked } from '../helpers/children.js';
import { startFetcherSite, type FetcherSite } from '../helpers/fixture-fetchers.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

let site: FixtureSite;
let pdfSite: FetcherSite;
before(async () => {
  [site, pdfSite] = await Promise.all([startFixtureSite(), startFetcherSite()]);
});
after(() => Promise.all([site.close(), pdfSite.close()]));

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Busy loops that spin until the test ends. */
const SPINNERS = 3;

/**
 * Takes the CPU from this process: with taskset, every thread of it (and the threads it starts later) and SPINNERS busy
 * loops share one core; without, twice as many loops as cores. Returns what gives the CPU back.
 */
function starve(t: TestContext): () => void {
  const spin = ['-e', 'for (;;);'];
  let restore = () => {};
  let loops: ReturnType<typeof spawnTracked>[];
  if (hasTaskset()) {
    const pid = String(process.pid);
    const mask = /mask: ([0-9a-f,]+)/.exec(execFileSync('taskset', ['-p', pid], { encoding: 'utf8' }))![1]!;
    const cpu = /list: (\d+)/.exec(execFileSync('taskset', ['-c', '-p', pid], { encoding: 'utf8' }))![1]!;
    execFileSync('taskset', ['-a', '-p', '-c', cpu, pid], { stdio: 'ignore' });
    restore = () => void execFileSync('taskset', ['-a', '-p', mask, pid], { stdio: 'ignore' });
    loops = Array.from({ length: SPINNERS }, () =>
      spawnTracked(t, 'taskset', ['-c', cpu, process.execPath, ...spin], {}),
    );
  } else {
    loops = Array.from({ length: 2 * availableParallelism() }, () => spawnTracked(t, process.execPath, spin, {}));
  }
  let given = false;
  const giveBack = () => {
    if (given) return;
    given = true;
    for (const loop of loops) loop.child.kill('SIGKILL');
    restore();
  };
  t.after(giveBack);
  return giveBack;
}

/** Whether the extraction thread is still at work (on a page whose caller was already answered 503, say). */
async function extracting(api: TestApp): Promise<boolean> {
  const metrics = (await api.get('/metrics')).text;
  return !/^fetchdown_extraction_tasks_running 0$/m.test(metrics);
}

/** Statuses a page may answer on a machine short of CPU: its content, or the server's 503; never a 422 or a 500. */
function assertServedOrBusy(res: { status: number; body: any; text: string; headers: Headers }, what: string): void {
  assert.ok(res.status === 200 || res.status === 503, `${what}: ${res.status} ${res.text}`);
  if (res.status === 503) {
    assert.equal(res.body.code, 'server_busy', res.text);
    assert.equal(res.headers.get('retry-after'), '2');
  }
}

/**
 * Runs a page through the extraction thread before the CPU is taken, so that the thread has loaded its code and run
 * that kind of page once; on a loaded machine the caller may be answered 503 while the thread finishes it unseen.
 */
async function warm(api: TestApp, body: { url: string }): Promise<void> {
  assertServedOrBusy(await api.post('/fetch', body), `warming up with ${body.url}`);
  while (await extracting(api)) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe(
  'a machine short of CPU',
  { skip: process.platform !== 'linux' && 'thread CPU time is read from /proc' },
  () => {
    test('small pages are served or answered 503 server_busy, never 422; the 503s are neither cached nor billed', async (t) => {
      // A CPU limit well above what a small page or PDF needs (milliseconds; a thread's first PDF loads the PDF
      // library, about a second), and the thread at the lowest priority, so that a page waits for the core longer
      // than that limit: a deadline in wall time answers 422 here.
      const api = await buildTestApp(t, {
        EXTRACT_WORKERS: '1',
        EXTRACT_TIMEOUT_MS: '3000',
        EXTRACT_WALL_TIMEOUT_MS: '6000',
        EXTRACT_WORKER_NICE: '19',
        FETCH_TIMEOUT_MS: '20000',
      });
      const { apiKey } = await signUp(api);
      // Small pages of their own, and a small PDF (fetched afresh each time), with what each costs when served.
      const pages = [0, 1, 2, 3].map((i) => ({ url: site.url(`/unique/starved-${i}`), credits: 1 }));
      const pdf = { url: pdfSite.url('/report.pdf'), use_cache: false };
      // A free account: its allowance counts a PDF as one fetch, like any page.
      const requests = [pages[0]!, { ...pdf, credits: 1 }, pages[1]!, pages[2]!, { ...pdf, credits: 1 }, pages[3]!];
      const fetchPage = ({ credits: _, ...body }: { url: string; credits: number }) =>
        api.request('POST', '/fetch', body, withKey(apiKey));
      await warm(api, { url: site.url('/unique/starved-warm') });
      await warm(api, pdf);

      const giveBack = starve(t);
      const statuses: number[] = [];
      const refused: typeof requests = [];
      let credits = 0;
      for (const request of requests) {
        const res = await fetchPage(request);
        statuses.push(res.status);
        assertServedOrBusy(res, request.url);
        if (res.status === 200) credits += request.credits;
        else refused.push(request);
      }
      giveBack();
      t.diagnostic(`statuses while starved: ${statuses.join(' ')}`);

      // With the CPU back (unless the machine is busy of itself), a refused page is fetched afresh: none was cached.
      for (const request of refused) {
        const res = await fetchPage(request);
        assertServedOrBusy(res, request.url);
        if (res.status === 200) {
          assert.equal(res.body.cache.hit, false);
          credits += request.credits;
        }
      }
      // The price of each page served, nothing for a 503.
      const usage = await api.request('GET', '/account/usage', undefined, withKey(apiKey));
      assert.equal(usage.body.credits_used, credits);
    });

    test('a hostile page still ends in 422 extraction_timeout once its own CPU reaches its limit', async (t) => {
      // A wall limit long enough for the thread, at its usual priority, to get 200 ms of CPU beside the busy loops.
      const api = await buildTestApp(t, {
        EXTRACT_WORKERS: '1',
        EXTRACT_TIMEOUT_MS: '200',
        EXTRACT_WALL_TIMEOUT_MS: '600000',
        FETCH_TIMEOUT_MS: '20000',
      });
      await warm(api, { url: site.url('/unique/hostile-warm') });
      starve(t);
      for (const kind of ['letters']) {
        const res = await api.post('/fetch', { url: site.url(`/hostile/${kind}`) });
        assert.equal(res.status, 422, `${kind}: ${res.text}`);
        assert.equal(res.body.code, 'extraction_timeout');
        assert.match(res.body.detail, /longer than 200 ms of CPU/);
      }
    });
  },
);
