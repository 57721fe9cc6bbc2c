// An idle server sleeps (issue 31, defect 7): no timer wakes its event loop every few milliseconds (the event-loop lag
// is sampled only while there is work, src/metrics/process.ts), and no extraction thread starts before a page needs
// one. Read from /proc (Linux): the voluntary context switches of the main thread count the times it woke from its
// wait for events, which a busy machine does not add to (it preempts a thread: involuntary switches); the CPU time is
// the whole process's, every thread's. The window opens once start-up's garbage is behind: V8 collects it in a few
// bursts (~0.1 s of CPU in all) within about half a minute of the start, once, which is not what an idle server costs.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { EVENT_LOOP_IDLE_MS } from '../../src/metrics/process.js';
import { buildIfStale } from '../helpers/build.js';
import { startServerProcess } from '../helpers/server-process.js';

const WINDOW_MS = 15_000;
const WINDOWS = 4;
/** The window opens this long after the server listens at the earliest: past V8's collections of start-up garbage. */
const SETTLED_MS = 40_000;
/** Bounds far above an idle server's (~0.2 wakeups and ~0.1 ms of CPU a second) and far below the 10 ms monitor's. */
const MAX_WAKEUPS_PER_SECOND = 2;
const MAX_CPU_MS_PER_SECOND = 5;
/** Linux's clock ticks of /proc/<pid>/stat (USER_HZ), in ms. */
const TICK_MS = 10;

function readings(pid: number): { wakeups: number; cpuMs: number; at: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return {
    wakeups: Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)![1]),
    cpuMs: (Number(stat[11]) + Number(stat[12])) * TICK_MS,
    at: performance.now(),
  };
}

test('an idle server is not woken by timers, spends no CPU to speak of and has started no thread', async (t) => {
  if (!existsSync('/proc/self/status')) return t.skip('reads /proc (Linux)');
  buildIfStale();
  // The default set-up: the embedded cache and store, threads one per core.
  const server = await startServerProcess(t, { CACHE_URL: '' });
  const listening = performance.now();
  // A request (not a probe) starts the event-loop sampling, which must stop again once requests stop.
  assert.equal((await fetch(`${server.base}/no-such-page`)).status, 404);
  await sleep(Math.max(2 * EVENT_LOOP_IDLE_MS + 1000, listening + SETTLED_MS - performance.now()));

  // Windows until one is quiet, at most WINDOWS: a timer that wakes the server shows in every window, while a loaded
  // machine may stretch start-up's one-time collections past SETTLED_MS (the suite beside a CPU hog, issue 32).
  for (let window = 1; window <= WINDOWS; window++) {
    const before = readings(server.pid);
    await sleep(WINDOW_MS);
    const after = readings(server.pid);
    const seconds = (after.at - before.at) / 1000;
    const wakeups = (after.wakeups - before.wakeups) / seconds;
    const cpu = (after.cpuMs - before.cpuMs) / seconds;
    const verdict = `${wakeups.toFixed(1)} wakeups and ${cpu.toFixed(2)} ms of CPU a second over ${seconds.toFixed(1)} s`;
    if (wakeups <= MAX_WAKEUPS_PER_SECOND && cpu <= MAX_CPU_MS_PER_SECOND) break;
    assert.ok(window < WINDOWS, `every one of ${WINDOWS} windows was busy; the last: ${verdict}`);
  }

  // A scrape is a probe: it reads the gauges without starting anything.
  const metrics = await (await fetch(`${server.base}/metrics`)).text();
  assert.match(metrics, /^fetchdown_extraction_threads_started 0$/m);
});
