// A worker module for pool.test.ts: tasks that answer, throw, hold on to memory, exhaust the heap, tell the thread's
// scheduling priority, spin on the CPU, wait without using it, recurse past the stack, or end the thread.
import { getPriority } from 'node:os';
import { serveTasks } from '../../src/workers/serve.js';

const kept: number[][][] = [];
/** About one megabyte on the heap: 131,072 doubles (filled with a fraction, so none is a small integer). */
const megabyte = () => new Array<number>(131_072).fill(0.5);

serveTasks({
  echo: (input: unknown) => input,
  priority: () => getPriority(0),
  fail: () => {
    throw new TypeError('the task failed');
  },
  // Keeps about `mb` megabytes reachable, so the heap stays past the recycling threshold.
  keep: (mb: number) => {
    kept.push(Array.from({ length: mb }, megabyte));
    return kept.length;
  },
  exhaust: () => {
    const grow: number[][] = [];
    for (;;) grow.push(megabyte());
  },
  // Uses the CPU until it is stopped: what a page that is too heavy does.
  spin: () => {
    for (;;);
  },
  // Blocks the thread for `ms` without using the CPU: what a page does on a machine too busy to run it.
  wait: (ms: number) => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    return ms;
  },
  exit: () => process.exit(3),
  // Recurses until the engine's stack limit: what a page nested too deeply for a recursive pass does.
  recurse: () => {
    const deeper = (n: number): number => deeper(n + 1) + 1;
    return deeper(0);
  },
});
