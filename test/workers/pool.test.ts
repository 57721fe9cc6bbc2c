// The worker pool on its own, with a test worker module: results and thrown errors cross back as they were, a task
// past its heap limit fails with `memory` and its thread is replaced, and a thread whose heap stays past half its
// limit after a task is recycled; threads run nicer than the event loop. A task's CPU limit counts its own work, not
// the time it spends without a core; a thread that stops or cannot load loses its tasks as an outcome, never an
// error. (The bounded queue and recycling by count: test/http/extraction-threads; CPU starvation:
// test/http/extraction-starved.)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { test } from 'node:test';
import { workerEntry } from '../../src/workers/entry.js';
import { createWorkerPool } from '../../src/workers/pool.js';

const pool = (
  heapMb: number,
  nice = 0,
  limits = { cpuLimitMs: 60_000, wallLimitMs: 120_000 },
  module = 'tasks-worker',
) =>
  createWorkerPool({
    entry: workerEntry(import.meta.url, module),
    size: 1,
    queueMax: 4,
    ...limits,
    maxTasks: 100,
    heapMb,
    nice,
  });

test('a result and a thrown error cross back as they were', async (t) => {
  const workers = pool(256);
  t.after(() => workers.close());
  assert.deepEqual(await workers.run('echo', { a: [1, 'two'] }), { ok: true, value: { a: [1, 'two'] } });
  await assert.rejects(workers.run('fail', null), { name: 'TypeError', message: 'the task failed' });
  assert.deepEqual(await workers.run('echo', 3), { ok: true, value: 3 });
  assert.equal(workers.stats().started, 1);
});

test("a task that reaches the engine's own limits fails with limits, an outcome, not a thrown error", async (t) => {
  const workers = pool(256);
  t.after(() => workers.close());
  assert.deepEqual(await workers.run('recurse', null), { ok: false, reason: 'limits' });
  assert.deepEqual(await workers.run('echo', 'after'), { ok: true, value: 'after' });
});

test('a task past the heap limit fails with memory, and the next task gets a new thread', async (t) => {
  const workers = pool(64);
  t.after(() => workers.close());
  assert.deepEqual(await workers.run('exhaust', null), { ok: false, reason: 'memory' });
  assert.deepEqual(await workers.run('echo', 'after'), { ok: true, value: 'after' });
  assert.equal(workers.stats().started, 2);
});

test('a thread whose heap stays past half its limit after a task is replaced', async (t) => {
  const workers = pool(128);
  t.after(() => workers.close());
  assert.deepEqual(await workers.run('keep', 1), { ok: true, value: 1 });
  assert.deepEqual(await workers.run('keep', 1), { ok: true, value: 2 }); // the same thread: its kept list grew
  assert.deepEqual(await workers.run('keep', 80), { ok: true, value: 3 }); // now past 64 MB: this thread goes
  assert.deepEqual(await workers.run('keep', 1), { ok: true, value: 1 }); // a new thread, its list empty
  assert.equal(workers.stats().started, 2);
});

test('after close, tasks are refused', async () => {
  const workers = pool(64);
  await workers.close();
  assert.deepEqual(await workers.run('echo', 1), { ok: false, reason: 'closed' });
});

/** The nice value of each thread of this process, from /proc (field 19 of a task's stat). */
function threadNiceness(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

test(
  'threads run `nice` steps nicer than the event loop, which keeps its own',
  { skip: process.platform !== 'linux' },
  async (t) => {
    const mine = getPriority(0);
    const workers = pool(64, 5);
    t.after(() => workers.close());
    assert.deepEqual(await workers.run('priority', null), { ok: true, value: Math.min(19, mine + 5) });
    assert.equal(getPriority(0), mine);
    assert.ok(threadNiceness().includes(Math.min(19, mine + 5)), "no thread of the process runs at the pool's nice");
    const plain = pool(64, 0);
    t.after(() => plain.close());
    assert.deepEqual(await plain.run('priority', null), { ok: true, value: mine });
  },
);

// Where a thread's CPU time cannot be read (not Linux) the CPU limit is wall time, and a wait counts against it.
const linuxOnly = { skip: process.platform !== 'linux' };

/** Starts the pool's thread and waits until it has loaded, so that a short wall limit is not spent on loading. */
async function loaded(workers: ReturnType<typeof pool>): Promise<void> {
  workers.warm();
  while (workers.stats().ready < 1) await new Promise((resolve) => setTimeout(resolve, 20));
}

test('a task that uses its CPU limit fails with timeout, and the next task gets a new thread', async (t) => {
  const workers = pool(64, 0, { cpuLimitMs: 200, wallLimitMs: 600_000 });
  t.after(() => workers.close());
  assert.deepEqual(await workers.run('spin', null), { ok: false, reason: 'timeout' });
  assert.deepEqual(await workers.run('echo', 'after'), { ok: true, value: 'after' });
  assert.equal(workers.stats().started, 2);
});

test('a task that runs past its CPU limit in wall time without using that CPU is served', linuxOnly, async (t) => {
  const workers = pool(64, 0, { cpuLimitMs: 100, wallLimitMs: 600_000 });
  t.after(() => workers.close());
  assert.deepEqual(await workers.run('wait', 500), { ok: true, value: 500 });
  assert.equal(workers.stats().started, 1);
});

test('a task still short of its CPU limit at the wall limit fails with starved, not timeout', linuxOnly, async (t) => {
  const workers = pool(64, 0, { cpuLimitMs: 100, wallLimitMs: 300 });
  t.after(() => workers.close());
  await loaded(workers);
  assert.deepEqual(await workers.run('wait', 1500), { ok: false, reason: 'starved' });
  // Its thread finishes it unseen, rather than a new thread being started on a machine short of CPU.
  while (workers.stats().running > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(await workers.run('echo', 'after'), { ok: true, value: 'after' });
  assert.equal(workers.stats().started, 1);
});

test('a task still waiting for a thread at the wall limit fails with starved, and leaves the queue', async (t) => {
  const workers = pool(64, 0, { cpuLimitMs: 60_000, wallLimitMs: 1000 });
  t.after(() => workers.close());
  await loaded(workers);
  const first = workers.run('wait', 3000);
  const second = workers.run('echo', 'queued');
  assert.deepEqual(await second, { ok: false, reason: 'starved' });
  assert.deepEqual(await first, { ok: false, reason: 'starved' });
  assert.equal(workers.stats().queued, 0);
});

test('a thread that exits during a task loses it as an outcome, not an error; the next task gets a new thread', async (t) => {
  const workers = pool(64);
  t.after(() => workers.close());
  assert.deepEqual(await workers.run('exit', null), { ok: false, reason: 'lost' });
  assert.deepEqual(await workers.run('echo', 'after'), { ok: true, value: 'after' });
  assert.equal(workers.stats().started, 2);
});

test('tasks waiting for a thread that cannot load are lost as an outcome, not an error', async (t) => {
  const workers = pool(64, 0, undefined, 'unloadable-worker');
  t.after(() => workers.close());
  assert.deepEqual(await workers.run('echo', 1), { ok: false, reason: 'lost' });
});
