// The embedded default's job engine: plainjob, a queue in a SQLite file under DATA_DIR (better-sqlite3, as the
// account store), so a crawl survives a restart of its one process. Its pollers run only while there are jobs: an
// idle server keeps no timer awake (issue 31's idle CPU), and adding a job starts them again.
import Database from 'better-sqlite3';
import { better, defineQueue, defineWorker, JobStatus, type Worker } from 'plainjob';
import type { JobOutcome, JobQueue, QueuedJob } from './types.js';

const JOB = 'crawl';
/** How often an idle poller looks for a job while there are jobs (delayed ones among them). */
const POLL_MS = 50;
/** A job left processing this long (its process died mid-job) is queued again. */
const TIMEOUT_MS = 120_000;
const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

export function createEmbeddedQueue(file: string): JobQueue {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  const queue = defineQueue({
    connection: better(db),
    logger: quiet,
    timeout: TIMEOUT_MS,
    maintenanceInterval: TIMEOUT_MS,
    removeDoneJobsOlderThan: 60_000,
    removeFailedJobsOlderThan: 24 * 3_600_000,
  });
  // Jobs a previous run of this process left processing: none of them runs now (one process owns the file).
  queue.requeueTimedOutJobs(0);
  const left = () => queue.countJobs({ status: JobStatus.Pending }) + queue.countJobs({ status: JobStatus.Processing });
  let handle: ((job: QueuedJob) => Promise<JobOutcome>) | undefined;
  let concurrency = 0;
  let workers: Worker[] = [];
  let running: Promise<void>[] = [];
  let closed = false;

  function start() {
    if (!handle || workers.length > 0 || closed) return;
    const run = handle;
    workers = Array.from({ length: concurrency }, () =>
      defineWorker(
        JOB,
        async ({ data }) => {
          const job = JSON.parse(data) as QueuedJob;
          const outcome = await run(job);
          // Kept while closing too: close() waits for this job, and a job dropped here would leave its page unread.
          if (outcome) queue.add(JOB, { ...job, delayMs: undefined }, { delay: outcome.laterMs });
          // The last job done: the pollers stop until the next add.
          if (!closed && left() <= 1) setImmediate(stopIdle);
        },
        { queue, logger: quiet, pollIntervall: POLL_MS },
      ),
    );
    running = workers.map((worker) => worker.start().catch(() => undefined));
  }

  async function stop() {
    const stopping = workers;
    workers = [];
    await Promise.all(stopping.map((worker) => worker.stop()));
    await Promise.all(running);
  }

  function stopIdle() {
    if (!closed && left() === 0) void stop().then(() => !closed && left() > 0 && start());
  }

  return {
    async add(jobs) {
      for (const job of jobs) queue.add(JOB, job, job.delayMs ? { delay: job.delayMs } : undefined);
      if (jobs.length > 0) start();
    },
    work(handler, count) {
      if (closed) return;
      handle = handler;
      concurrency = count;
      if (left() > 0) start();
    },
    async pending() {
      return left();
    },
    async close() {
      closed = true;
      await stop();
      queue.close();
      db.close();
    },
  };
}
