// A pool of worker threads for CPU work that must not hold the event loop: a bounded queue, two limits per task (its
// own CPU time, past which its thread is terminated and replaced, and the wall time from its arrival, past which its
// caller is answered), and workers recycled after a number of tasks or once their heap has grown past half its limit.
// It knows nothing of what the tasks do: the entry module serves them (serve.ts).
import { execArgv } from 'node:process';
import { Worker } from 'node:worker_threads';
import type { WorkerEntry } from './entry.js';
import { threadCpuMs } from './thread-cpu.js';

export interface WorkerPoolOptions {
  /** The worker's module (entry.ts finds it, compiled or under tsx); it calls serveTasks (serve.ts). */
  entry: WorkerEntry;
  /** Threads at most; they start on the first tasks that need them (or some at once on warm()). */
  size: number;
  /** Tasks waiting for a thread at most, beyond one per free thread; past it, run() answers `busy` at once. */
  queueMax: number;
  /**
   * CPU time a task may use on its thread: past it the task fails with `timeout`, its own work being too much. On
   * Linux it is the thread's own CPU time (/proc), so a wait for a core does not count; elsewhere, the wall time since
   * the task reached its thread.
   */
  cpuLimitMs: number;
  /**
   * Wall time from a task's arrival (its wait for a thread included) to its result: a task that has not used its CPU
   * limit by then fails with `starved`, the machine having been too busy to run it, not the task too heavy.
   */
  wallLimitMs: number;
  /** Tasks a thread runs before it is replaced, so whatever a task leaves behind cannot pile up. */
  maxTasks: number;
  /** The old-generation limit of each thread's heap: a task that needs more fails with `memory`. */
  heapMb: number;
  /**
   * Steps of niceness each thread adds to its own scheduling priority (Linux, where a nice value is per thread): the
   * event loop, with the I/O and the cheap answers, is then scheduled before the CPU work when both want a core.
   */
  nice: number;
}

/**
 * busy: the queue is full. timeout: the task used its CPU limit. starved: the wall limit passed before the task could
 * use that much CPU (waiting for a thread, or for a core). lost: its thread stopped, or could not start, for another
 * reason than the task's limits. memory: the task needed more heap than a thread has. limits: the task reached one of
 * the JavaScript engine's own limits (stack depth, string or array length). closed: the pool was closed.
 */
export type TaskFailure = 'busy' | 'timeout' | 'starved' | 'lost' | 'memory' | 'limits' | 'closed';

/** The engine's RangeErrors that an input's size or depth reaches, not a mistake in the task's code. */
const ENGINE_LIMITS =
  /^(Maximum call stack size exceeded|Invalid string length|Invalid array length|Array buffer allocation failed)/;
export type TaskOutcome<T> = { ok: true; value: T } | { ok: false; reason: TaskFailure };

export interface PoolStats {
  threads: number;
  /** Threads whose module has loaded, ready for a task. */
  ready: number;
  running: number;
  queued: number;
  /** Threads started since the pool was made: the first ones, and each replacement. */
  started: number;
}

interface Job {
  task: string;
  input: unknown;
  /** Fires at the wall limit, whether the task still waits for a thread or runs on one. */
  wallTimer: NodeJS.Timeout | null;
  /** Both clear wallTimer; once the caller has its answer, a later one is ignored. */
  settle(outcome: TaskOutcome<unknown>): void;
  fail(error: Error): void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  /** The thread's id, for its CPU time (thread-cpu.ts); null where it is not known. */
  tid: number | null;
  job: Job | null;
  /** When the job reached the thread: the thread's CPU time (null if unknown) and the wall clock, in ms. */
  cpuAtStart: number | null;
  startedAt: number;
  /** The next look at the job's CPU time. */
  timer: NodeJS.Timeout | null;
  tasks: number;
}

/** Past its CPU limit a task runs on until the next look: this often at most, so a look never spins. */
const MIN_LOOK_MS = 10;

/** What serve.ts sends: `ready` (with the thread's id) once its module has loaded, then one reply per task. */
export type Reply =
  | { ready: true; tid: number | null }
  | { ok: true; value: unknown; heapUsed: number }
  | { ok: false; error: { name: string; message: string; stack?: string } };

/** What a thread is told at its start (workerData). */
export interface ThreadSettings {
  nice: number;
}

/** The process's Node flags, less those a thread refuses (`node --input-type=module -e …` would fail every start). */
const THREAD_FLAGS = execArgv.filter((flag) => !flag.startsWith('--input-type'));

export function createWorkerPool(options: WorkerPoolOptions) {
  const threads = new Set<Thread>();
  const queue: Job[] = [];
  let started = 0;
  let closed = false;

  function retire(thread: Thread): void {
    if (!threads.delete(thread)) return;
    if (thread.timer) clearTimeout(thread.timer);
    thread.worker.removeAllListeners('message');
    void thread.worker.terminate().catch(() => undefined);
  }

  function finish(thread: Thread): Job | null {
    const job = thread.job;
    thread.job = null;
    if (thread.timer) clearTimeout(thread.timer);
    thread.timer = null;
    thread.worker.unref(); // an idle thread never keeps the process alive; a busy one does, for its caller
    return job;
  }

  /** The CPU time the thread's job has used; the wall time since it started where the thread's CPU cannot be read. */
  function cpuUsed(thread: Thread): number {
    const now = thread.tid === null || thread.cpuAtStart === null ? null : threadCpuMs(thread.tid);
    return now === null ? performance.now() - thread.startedAt : now - thread.cpuAtStart!;
  }

  /**
   * Looks at the job's CPU time: past the limit it stops; short of it, it looks again once the rest of the limit could
   * have been used (a thread uses at most one core), until the job ends or its wall limit passes.
   */
  function look(thread: Thread): void {
    const left = options.cpuLimitMs - cpuUsed(thread);
    if (left <= 0) return stop(thread, 'timeout');
    thread.timer = setTimeout(() => look(thread), Math.max(left, MIN_LOOK_MS));
  }

  /**
   * The job's wall limit: a job still waiting leaves the queue. A running one is answered `starved` but left to finish
   * on its thread, its result unused: on a machine short of CPU, a new thread (its module loaded again, its code cold)
   * would cost more than the rest of a page that is within its CPU limit, which still stops it if it is not.
   */
  function expire(job: Job): void {
    const waiting = queue.indexOf(job);
    if (waiting >= 0) queue.splice(waiting, 1);
    const thread = waiting >= 0 ? undefined : [...threads].find((t) => t.job === job);
    if (thread && cpuUsed(thread) >= options.cpuLimitMs) return stop(thread, 'timeout');
    job.settle({ ok: false, reason: 'starved' });
  }

  function start(): Thread {
    started++;
    const worker = new Worker(options.entry.source, {
      eval: options.entry.eval,
      execArgv: THREAD_FLAGS,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb },
      workerData: { nice: options.nice } satisfies ThreadSettings,
      // Piped and dropped: a stray console line must not reach the process's stdout, which is the MCP stdio channel.
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    worker.unref();
    const thread: Thread = {
      worker,
      ready: false,
      tid: null,
      job: null,
      cpuAtStart: null,
      startedAt: 0,
      timer: null,
      tasks: 0,
    };
    threads.add(thread);
    worker.on('message', (reply: Reply) => {
      if ('ready' in reply) {
        thread.ready = true;
        thread.tid = reply.tid;
        return pump();
      }
      const job = finish(thread);
      thread.tasks++;
      if (reply.ok) {
        if (thread.tasks >= options.maxTasks || reply.heapUsed > (options.heapMb * 1024 * 1024) / 2) retire(thread);
        job?.settle({ ok: true, value: reply.value });
      } else if (reply.error.name === 'RangeError' && ENGINE_LIMITS.test(reply.error.message)) {
        job?.settle({ ok: false, reason: 'limits' });
      } else {
        // The task threw: the same error as a call in this thread would have thrown.
        job?.fail(Object.assign(new Error(reply.error.message), { name: reply.error.name, stack: reply.error.stack }));
      }
      pump();
    });
    // A thread that stops on its own (an error outside any task, an exit) took no decision about its task: the task
    // is `lost`, never a thrown error, which would answer as a 500.
    worker.on('error', (error: Error & { code?: string }) => {
      if (!thread.ready) return failStart(thread);
      stop(thread, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'lost');
    });
    worker.on('exit', () => {
      if (!thread.ready) return failStart(thread);
      stop(thread, 'lost');
    });
    return thread;
  }

  /** Ends the thread's job with `reason` and the thread with it; a new thread takes the queue. */
  function stop(thread: Thread, reason: TaskFailure): void {
    const job = finish(thread);
    retire(thread);
    job?.settle({ ok: false, reason });
    pump();
  }

  /** A thread that cannot even load would fail the same way again: its waiting tasks are lost rather than loop. */
  function failStart(thread: Thread): void {
    if (!threads.has(thread)) return;
    retire(thread);
    if ([...threads].some((t) => !t.ready)) return; // another thread is loading and may yet take them
    for (const job of queue.splice(0)) job.settle({ ok: false, reason: 'lost' });
  }

  function dispatch(thread: Thread, job: Job): void {
    thread.job = job;
    thread.worker.ref();
    thread.startedAt = performance.now();
    thread.cpuAtStart = thread.tid === null ? null : threadCpuMs(thread.tid);
    thread.timer = setTimeout(() => look(thread), options.cpuLimitMs);
    thread.worker.postMessage({ task: job.task, input: job.input });
  }

  function pump(): void {
    if (closed) return;
    for (const thread of threads) {
      if (queue.length === 0) return;
      if (thread.ready && !thread.job) dispatch(thread, queue.shift()!);
    }
    // Threads still loading will take their share of the queue when ready; start more only for the rest.
    const loading = [...threads].filter((t) => !t.ready).length;
    for (let wanted = queue.length - loading; wanted > 0 && threads.size < options.size; wanted--) start();
  }

  return {
    /** Runs `task` with `input` (copied to the thread) on a thread; a task that throws rejects with its error. */
    run<T>(task: string, input: unknown): Promise<TaskOutcome<T>> {
      if (closed) return Promise.resolve({ ok: false, reason: 'closed' });
      // The queue bound counts the tasks beyond those the threads (running, loading or not yet started) can take.
      const running = [...threads].filter((t) => t.job).length;
      if (queue.length >= options.queueMax + options.size - running)
        return Promise.resolve({ ok: false, reason: 'busy' });
      return new Promise<TaskOutcome<T>>((resolve, reject) => {
        const job: Job = {
          task,
          input,
          wallTimer: null,
          settle: (outcome) => {
            clearTimeout(job.wallTimer ?? undefined);
            resolve(outcome as TaskOutcome<T>);
          },
          fail: (error) => {
            clearTimeout(job.wallTimer ?? undefined);
            reject(error);
          },
        };
        job.wallTimer = setTimeout(() => expire(job), options.wallLimitMs);
        queue.push(job);
        pump();
      });
    },
    /** Starts `count` threads now (at most `size`), so the first tasks do not wait for them to load their module. */
    warm(count: number = options.size): void {
      while (!closed && threads.size < Math.min(count, options.size)) start();
    },
    stats(): PoolStats {
      const running = [...threads].filter((t) => t.job).length;
      const ready = [...threads].filter((t) => t.ready).length;
      return { threads: threads.size, ready, running, queued: queue.length, started };
    },
    async close(): Promise<void> {
      closed = true;
      for (const job of queue.splice(0)) job.settle({ ok: false, reason: 'closed' });
      const stopping = [...threads].map((thread) => {
        const job = finish(thread);
        job?.settle({ ok: false, reason: 'closed' });
        thread.worker.removeAllListeners();
        threads.delete(thread);
        return thread.worker.terminate().catch(() => undefined);
      });
      await Promise.all(stopping);
    },
  };
}

export type WorkerPool = ReturnType<typeof createWorkerPool>;
