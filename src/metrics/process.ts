// The process metrics (process_*, nodejs_*): prom-client's default metrics, with the event-loop lag sampled only while
// the server has work. prom-client's own lag monitor wakes the event loop every 10 ms for as long as the process
// lives: ~100 wakeups and 3.5–4.5 ms of CPU a second on a server that does nothing (issue 31, docs/operations.md).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';
// collectDefaultMetrics less its eventLoopLag: the same modules, in its order (prom-client 15).
import gc from 'prom-client/lib/metrics/gc.js';
import heapSizeAndUsed from 'prom-client/lib/metrics/heapSizeAndUsed.js';
import heapSpacesSizeAndUsed from 'prom-client/lib/metrics/heapSpacesSizeAndUsed.js';
import osMemoryHeap from 'prom-client/lib/metrics/osMemoryHeap.js';
import processCpuTotal from 'prom-client/lib/metrics/processCpuTotal.js';
import processHandles from 'prom-client/lib/metrics/processHandles.js';
import processMaxFileDescriptors from 'prom-client/lib/metrics/processMaxFileDescriptors.js';
import processOpenFileDescriptors from 'prom-client/lib/metrics/processOpenFileDescriptors.js';
import processRequests from 'prom-client/lib/metrics/processRequests.js';
import processResources from 'prom-client/lib/metrics/processResources.js';
import processStartTime from 'prom-client/lib/metrics/processStartTime.js';
import version from 'prom-client/lib/metrics/version.js';

const DEFAULT_METRICS = [
  processCpuTotal,
  processStartTime,
  osMemoryHeap,
  processOpenFileDescriptors,
  processMaxFileDescriptors,
  processResources,
  processHandles,
  processRequests,
  heapSizeAndUsed,
  heapSpacesSizeAndUsed,
  version,
  gc,
];

/** The lag is sampled every this many ms (prom-client's default precision)… */
const RESOLUTION_MS = 10;
/** …from the first piece of work until no work has been noted for between this and twice this long. */
export const EVENT_LOOP_IDLE_MS = 10_000;

/** The event-loop delay of the work since the last scrape, as prom-client's nodejs_eventloop_lag_* report it. */
function registerEventLoopLag(registry: Registry): { noteWork(): void } {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  let watch: NodeJS.Timeout | undefined;
  let worked = false;

  const registers = [registry];
  // Registered first and read first: a scrape calls every metric's collect in the order they were registered, and
  // this one sets the gauges below before they are read.
  new Gauge({
    name: 'nodejs_eventloop_lag_seconds',
    help: 'Lag of event loop in seconds.',
    registers,
    // Every recorded delay since the last scrape, then this scrape's own wait for the loop. No sample (the server had
    // no work) reads as no delay: the histogram's empty values (a min of 2^63 ns, a NaN mean) are no reading at all.
    async collect() {
      const sampled = histogram.count > 0;
      for (const [metric, read] of readings) metric.set(sampled ? read() / 1e9 : 0);
      histogram.reset();
      const start = process.hrtime.bigint();
      await new Promise((resolve) => setImmediate(resolve));
      this.set(Number(process.hrtime.bigint() - start) / 1e9);
    },
  });
  const gauge = (name: string, help: string) => new Gauge({ name: `nodejs_eventloop_lag_${name}`, help, registers });
  const readings: [Gauge, () => number][] = [
    [gauge('min_seconds', 'The minimum recorded event loop delay.'), () => histogram.min],
    [gauge('max_seconds', 'The maximum recorded event loop delay.'), () => histogram.max],
    [gauge('mean_seconds', 'The mean of the recorded event loop delays.'), () => histogram.mean],
    [gauge('stddev_seconds', 'The standard deviation of the recorded event loop delays.'), () => histogram.stddev],
    [gauge('p50_seconds', 'The 50th percentile of the recorded event loop delays.'), () => histogram.percentile(50)],
    [gauge('p90_seconds', 'The 90th percentile of the recorded event loop delays.'), () => histogram.percentile(90)],
    [gauge('p99_seconds', 'The 99th percentile of the recorded event loop delays.'), () => histogram.percentile(99)],
  ];

  return {
    /** Starts sampling if it had stopped; one check every EVENT_LOOP_IDLE_MS stops it once no work was noted. */
    noteWork() {
      worked = true;
      if (watch) return;
      histogram.enable();
      watch = setInterval(() => {
        if (worked) {
          worked = false;
          return;
        }
        histogram.disable();
        clearInterval(watch);
        watch = undefined;
      }, EVENT_LOOP_IDLE_MS).unref();
    },
  };
}

/** Registers the process metrics; the returned noteWork() is called for each piece of work (an HTTP request). */
export function registerProcessMetrics(registry: Registry): { noteWork(): void } {
  for (const register of DEFAULT_METRICS) register(registry, {});
  return registerEventLoopLag(registry);
}
