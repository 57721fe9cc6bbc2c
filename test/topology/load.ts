// Steady load through the load balancer: N connections each sending keyed POST /fetch one after another for a while,
// a share of them for pages already cached, the rest for pages never fetched. Counts every answer by status.
import { Agent, request } from 'undici';

export interface LoadOptions {
  base: string;
  /** Connection i sends key i mod n: one account's requests queue on its row lock (one charge at a time). */
  apiKeys: string[];
  connections: number;
  /** The load runs at least this long, and until `until` (if given) has resolved. */
  durationMs: number;
  until?: Promise<unknown>;
  /** URLs fetched before (cache hits); the load picks among them for `cachedShare` of its requests. */
  cachedUrls: string[];
  cachedShare: number;
  /** A URL never fetched before (a miss). */
  freshUrl(): string;
  /** A request unanswered this long counts as failed (status 0). */
  timeoutMs?: number;
}

export interface Failure {
  status: number;
  at: number;
  detail: string;
}

export interface LoadResult {
  requests: number;
  served: number;
  /** The `credits` of the answers received (200s), in millicredits, by API key. */
  creditsAnswered: Record<string, number>;
  failures: Failure[];
  byStatus: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  /** Requests per second over the run. */
  rate: number;
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!);
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ connections: options.connections });
  const latencies: number[] = [];
  const failures: Failure[] = [];
  const byStatus: Record<string, number> = {};
  const started = performance.now();
  const end = started + options.durationMs;
  let released = options.until === undefined;
  options.until?.finally(() => (released = true)).catch(() => undefined); // the caller awaits `until` itself
  let served = 0;
  const creditsAnswered: Record<string, number> = {};

  async function one(apiKey: string): Promise<void> {
    const cached = Math.random() < options.cachedShare && options.cachedUrls.length > 0;
    const url = cached
      ? options.cachedUrls[Math.floor(Math.random() * options.cachedUrls.length)]!
      : options.freshUrl();
    const t0 = performance.now();
    let status = 0;
    let detail = '';
    try {
      const res = await request(`${options.base}/fetch`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'x-service-key': apiKey },
        body: JSON.stringify({ url }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
      status = res.statusCode;
      const text = await res.body.text();
      if (status !== 200) detail = text.slice(0, 300);
      else creditsAnswered[apiKey] = (creditsAnswered[apiKey] ?? 0) + Math.round(JSON.parse(text).credits * 1000);
    } catch (error) {
      detail = String(error);
    }
    latencies.push(performance.now() - t0);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if (status === 200) served++;
    else failures.push({ status, at: Math.round(t0 - started), detail });
  }

  await Promise.all(
    Array.from({ length: options.connections }, async (_, i) => {
      const apiKey = options.apiKeys[i % options.apiKeys.length]!;
      while (performance.now() < end || !released) await one(apiKey);
    }),
  );
  await agent.close();
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    served,
    creditsAnswered,
    failures,
    byStatus,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    rate: Math.round(latencies.length / seconds),
  };
}
