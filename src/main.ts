// Process entry: load config, build services and app, listen; on SIGTERM/SIGINT drain (http/drain.ts), then close.
// Also the entry of `fetchdown worker`: the same services, reading crawl jobs instead of serving HTTP.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { redisOf } from './crawl/index.js';
import { createDeps } from './deps.js';

/** The part of SHUTDOWN_GRACE_MS that requests in flight may take; the rest closes the services. */
const DRAIN_SHARE = 0.8;

function exitWith(message: string): never {
  process.stderr.write(`fetchdown: ${message}\n`);
  process.exit(1);
}

function configOf(defaults: Record<string, string>) {
  try {
    return loadConfig(undefined, defaults);
  } catch (error) {
    if (error instanceof ConfigError) exitWith(`invalid configuration: ${error.message}`);
    throw error;
  }
}

/** `defaults`: the caller's own defaults for unset variables (`fetchdown serve`: its data dir). */
export async function startServer(defaults: Record<string, string> = {}): Promise<void> {
  const config = configOf(defaults);
  const deps = createDeps(config);
  // EXTRACT_WORKERS_WARM extraction threads (none by default) start and load their module while the app is built and
  // starts listening, so the first uncached fetches do not wait for them; the others start when a page needs one.
  deps.warm();
  const app = await buildApp(deps);
  const shutdown = async (signal: string) => {
    // Gone within the grace period whatever happens: rows it could not write wait in the spend journal, and its
    // credit leases are reclaimed once they expire.
    setTimeout(() => {
      app.log.error({ grace_ms: config.SHUTDOWN_GRACE_MS }, 'shutdown outlasted SHUTDOWN_GRACE_MS; exiting now');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS).unref();
    app.log.info({ signal }, 'draining: no new connections, finishing the requests in flight');
    const left = await app.drain(config.SHUTDOWN_GRACE_MS * DRAIN_SHARE);
    app.log.info(left, 'drained; shutting down');
    await app.close();
    await deps.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ port: config.PORT, host: config.HOST });
  app.log.info({ data_dir: resolve(config.DATA_DIR) }, 'data directory');
}

/**
 * `fetchdown worker`: reads crawl jobs from the Redis the API processes queue them on, CRAWL_CONCURRENCY at a time,
 * until SIGTERM or SIGINT; then takes no new job, lets the pages being read finish (within SHUTDOWN_GRACE_MS), exits.
 */
export async function startWorker(defaults: Record<string, string> = {}): Promise<void> {
  const config = configOf(defaults);
  if (!redisOf(config))
    exitWith(
      'worker reads crawl jobs from Redis: set CACHE_URL to the redis:// URL of the API processes (without Redis, ' +
        'the server reads its crawls itself)',
    );
  const deps = createDeps(config);
  const stop = async (signal: string) => {
    setTimeout(() => {
      deps.log.error({ grace_ms: config.SHUTDOWN_GRACE_MS }, 'stopping outlasted SHUTDOWN_GRACE_MS; exiting now');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS).unref();
    deps.log.info({ signal }, 'crawl worker stopping: no new jobs, finishing the pages being read');
    await deps.close();
    deps.log.info('crawl worker stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  // Queues again the pages of unfinished crawls that wait with no job, then reads jobs; the claims of pages being read
  // are left alone: they may be another worker's.
  await deps.operations.workCrawls(config.CRAWL_CONCURRENCY).catch((error: unknown) => {
    deps.log.error({ err: error }, 'crawl worker could not start');
    process.exit(1);
  });
  deps.log.info({ concurrency: config.CRAWL_CONCURRENCY }, 'crawl worker ready: reading jobs');
}

// Runs when this file is the process entry (node dist/main.js, tsx src/main.ts); `fetchdown serve` imports it instead.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) void startServer();
