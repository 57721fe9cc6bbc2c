// The thread side of pool.ts: a worker module calls serveTasks with its handlers; each message runs one of them and
// its result (or the error it threw) goes back with the heap the thread uses, which decides when it is recycled.
import { getPriority, setPriority } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import type { Reply, ThreadSettings } from './pool.js';
import { currentThreadId } from './thread-cpu.js';

export type TaskHandlers = Record<string, (input: never) => unknown>;

export function serveTasks(handlers: TaskHandlers): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs in a worker thread');
  async function run(task: string, input: never): Promise<Reply> {
    try {
      const handler = handlers[task];
      if (!handler) throw new Error(`no task named ${task}`);
      const value = await handler(input);
      return { ok: true, value, heapUsed: getHeapStatistics().used_heap_size };
    } catch (error) {
      const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
      return { ok: false, error: { name, message, stack } };
    }
  }
  port.on('message', ({ task, input }: { task: string; input: never }) => {
    void run(task, input).then((reply) => port.postMessage(reply));
  });
  lowerPriority((workerData as ThreadSettings).nice);
  // The thread's id lets the pool read the CPU time this thread has run, which only the thread itself can name.
  port.postMessage({ ready: true, tid: currentThreadId() } satisfies Reply);
}

/**
 * Process 0 is the calling thread on Linux; elsewhere it would be the whole process, so it is left alone there. A
 * sandbox that forbids it leaves the thread at the process's priority: slower to yield, never a failed start.
 */
function lowerPriority(nice: number): void {
  if (nice === 0 || process.platform !== 'linux') return;
  try {
    setPriority(0, Math.min(19, getPriority(0) + nice));
  } catch {
    // EACCES or EPERM under a seccomp profile: keep the priority it has.
  }
}
