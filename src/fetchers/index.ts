// Builds the four fetchers and the router from the config; the services layer holds the result and closes it.
import type { Cache } from '../cache/types.js';
import { BOT_TOKEN, isProduction, type Config } from '../config.js';
import { createAddressPolicy, type AddressRules } from '../net/guard.js';
import type { SafeClient } from '../net/safe-client.js';
import { createBrowserFetcher } from './browser.js';
import { createBrowserPool } from './browser-pool.js';
import { createConversions } from './conversions.js';
import { createDocumentFetcher } from './documents/fetcher.js';
import type { DocumentOptions } from './documents/index.js';
import { createHtmlFetcher } from './html.js';
import { createReaderFetcher } from './reader.js';
import { createRobotsPolicy } from './robots.js';
import { trackBrowserPool, trackExtraction } from '../metrics/registry.js';
import { createRouter } from './router.js';

export type { Router, Routed } from './router.js';

/** How binary documents and the text formats are read, from the config. */
export function documentOptions(config: Config): DocumentOptions {
  return {
    maxPages: config.PDF_MAX_PAGES,
    limits: {
      maxEntries: config.DOCUMENT_MAX_ENTRIES,
      maxUncompressedBytes: config.DOCUMENT_MAX_UNCOMPRESSED_BYTES,
      maxRows: config.DOCUMENT_MAX_ROWS,
      maxOcrPages: config.OCR_MAX_PAGES,
    },
  };
}

export function createFetchers(config: Config, deps: { client: SafeClient; cache: Cache; addresses?: AddressRules }) {
  const { client, cache } = deps;
  // The same rules as the client's own policy: one flag, the same blocked ranges, the same resolver.
  const policy = createAddressPolicy({
    allowPrivateNetworks: config.FETCH_ALLOW_PRIVATE_NETWORKS,
    nameSetting: !isProduction(config),
    ...deps.addresses,
  });
  const pool = createBrowserPool({
    policy,
    size: config.BROWSER_POOL_SIZE,
    queueMax: config.BROWSER_QUEUE_MAX,
    chromiumPath: config.CHROMIUM_PATH,
    wsEndpoint: config.BROWSER_WS_ENDPOINT,
    apiKey: config.BROWSER_API_KEY,
    userAgent: config.USER_AGENT,
    acquireTimeoutMs: config.FETCH_TIMEOUT_MS,
  });
  const documents = documentOptions(config);
  const conversions = createConversions({
    workers: config.EXTRACT_WORKERS,
    queueMax: config.EXTRACT_QUEUE_MAX,
    timeoutMs: config.EXTRACT_TIMEOUT_MS,
    wallTimeoutMs: config.EXTRACT_WALL_TIMEOUT_MS || 2 * config.EXTRACT_TIMEOUT_MS,
    maxTasks: config.EXTRACT_WORKER_MAX_TASKS,
    heapMb: config.EXTRACT_WORKER_HEAP_MB,
    nice: config.EXTRACT_WORKER_NICE,
    documents,
  });
  const robots = config.ROBOTS_TXT === 'ignore' ? null : createRobotsPolicy({ client, cache, token: BOT_TOKEN });
  const router = createRouter({
    client,
    policy,
    fetchers: {
      html: createHtmlFetcher({ client, limits: documents.limits, convert: conversions.html }),
      pdf: createDocumentFetcher({ client, options: documents, convert: conversions.pdf }),
      browser: createBrowserFetcher({
        extract: conversions.extract,
        pool,
        policy,
        waitMs: config.BROWSER_WAIT_MS,
        timeoutMs: config.FETCH_TIMEOUT_MS,
        maxBytes: config.FETCH_MAX_BYTES,
        userAgent: config.USER_AGENT,
      }),
      reader: createReaderFetcher({
        baseUrl: config.READER_BASE_URL,
        apiKey: config.READER_API_KEY,
        timeoutMs: config.FETCH_TIMEOUT_MS,
        maxBytes: config.FETCH_MAX_BYTES,
        policy,
        convert: conversions.reader,
      }),
    },
    robots,
  });
  const untrack = trackBrowserPool(pool);
  const untrackConversions = trackExtraction(conversions);
  return {
    router,
    /** robots.txt per origin (null when ROBOTS_TXT=ignore): crawls read its Crawl-delay and Sitemap lines too. */
    robots,
    browserPool: pool,
    conversions,
    close: async () => {
      untrack();
      untrackConversions();
      await Promise.all([pool.close(), conversions.close()]);
    },
  };
}
