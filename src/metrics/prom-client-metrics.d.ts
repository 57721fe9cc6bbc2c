// Types for the modules of prom-client 15's default metrics, which ship none: each registers its metrics in a registry
// (src/metrics/process.ts imports them one by one instead of calling collectDefaultMetrics).
declare module 'prom-client/lib/metrics/*' {
  import type { Registry } from 'prom-client';
  const registerMetrics: (registry: Registry, config?: Record<string, unknown>) => void;
  export default registerMetrics;
}
