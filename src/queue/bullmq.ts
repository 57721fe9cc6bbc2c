// The production job engine: BullMQ on the Redis production already has. Any number of `fetchdown worker` processes
// on any number of machines take jobs; a worker that dies leaves its jobs locked until BullMQ's stalled-job check
// gives them to another (the lock below).
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { JobOutcome, JobQueue, QueuedJob } from './types.js';

export interface BullQueueOptions {
  /** The queue's name: API processes and their workers share one. */
  name: string;
  /** A job whose lock is not renewed for this long is stalled (its worker died) and runs again elsewhere. */
  lockMs: number;
}

export function createBullQueue(url: string, options: BullQueueOptions): JobQueue {
  // BullMQ's blocking commands need a connection that never gives up on a request (maxRetriesPerRequest: null).
  const connection = () => new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false });
  const producer = connection();
  const queue = new Queue(options.name, {
    connection: producer,
    defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000 },
  });
  // Redis away (an outage, a restart): adds fail to their callers; an 'error' event without a listener would end the
  // process.
  queue.on('error', () => undefined);
  producer.on('error', () => undefined);
  const workers: Worker[] = [];
  const connections: Redis[] = [];
  let closed = false;

  const toBull = (job: QueuedJob) => ({
    name: job.name,
    data: job.data,
    opts: { ...(job.id ? { jobId: job.id } : {}), ...(job.delayMs ? { delay: job.delayMs } : {}) },
  });

  return {
    async add(jobs) {
      if (jobs.length > 0) await queue.addBulk(jobs.map(toBull));
    },
    work(handler, concurrency) {
      // A worker started after close would hold its connection open for ever.
      if (closed) return;
      // BullMQ closes only the connections it made itself: this one is closed with the queue.
      const workerConnection = connection();
      connections.push(workerConnection);
      const worker = new Worker(
        options.name,
        async (job: Job) => {
          const outcome: JobOutcome = await handler({ name: job.name, data: job.data as Record<string, unknown> });
          // Again later: a new job (its id freed once this one completes), so the engine's own retries stay for faults.
          if (outcome) await queue.add(job.name, job.data, { delay: outcome.laterMs });
        },
        { connection: workerConnection, concurrency, lockDuration: options.lockMs, stalledInterval: options.lockMs },
      );
      // A job that threw is kept failed (removeOnFail) for the operator; the worker goes on.
      worker.on('error', () => undefined);
      workers.push(worker);
    },
    async pending() {
      const counts = await queue.getJobCounts('waiting', 'delayed', 'active');
      return (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.active ?? 0);
    },
    async close() {
      closed = true;
      await Promise.all(workers.map((worker) => worker.close()));
      await queue.close();
      for (const client of [producer, ...connections]) client.disconnect();
    },
  };
}
