// A job engine behind one small interface: BullMQ on Redis in production (bullmq.ts), plainjob on the embedded
// default's SQLite (embedded.ts). Jobs are small records ({crawl id, URL}); what a job means lives in the store, so
// an engine that runs a job twice (a stalled job picked up again) changes nothing (src/operations/crawl-worker.ts).

export interface QueuedJob {
  /** What the job does: a crawl's page, a webhook delivery. */
  name: string;
  data: Record<string, unknown>;
  /** An id the engine keeps one job per (BullMQ); the embedded engine relies on the store's own dedupe. */
  id?: string;
  delayMs?: number;
}

/** A handler's answer: done (nothing), or put the job back to run again in `laterMs` (a busy host, a retry). */
export type JobOutcome = void | { laterMs: number };

export interface JobQueue {
  add(jobs: readonly QueuedJob[]): Promise<void>;
  /** Runs `handler` on up to `concurrency` jobs at once until closed. */
  work(handler: (job: QueuedJob) => Promise<JobOutcome>, concurrency: number): void;
  /** Jobs waiting or delayed, for readiness and the idle embedded worker. */
  pending(): Promise<number>;
  close(): Promise<void>;
}
