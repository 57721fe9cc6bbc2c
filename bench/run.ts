// `npm run bench`: the service's figures against baselines measured in the same run, printed as a Markdown table.
import { runExtractionBench } from './extraction.js';
import { fetchersRows, runFetchersBench } from './fetchers.js';
import { startServerChild } from './processes.js';
import { runServingBench, SERVING_HEADER } from './serving.js';

const fmt = (n: number, digits = 1) => n.toFixed(digits);

const servers = await startServerChild<{ app: string; site: string; pid: number }>(
  'bench/servers.ts',
  [],
  ['app', 'site', 'pid'],
);
try {
  const { app } = servers.addresses;
  // The serving rows: cached /fetch against a bare route, a batch against one URL, an uncached fetch against the same
  // work done here; each interleaved.
  const serving = await runServingBench({ origin: app, pid: servers.addresses.pid });

  const extraction = await runExtractionBench();
  const fetchers = await runFetchersBench();

  const rows = [
    [
      'extraction, 181 benchmark pages',
      `${fmt(extraction.pagesPerSecond)} pages/s, F1 ${fmt(extraction.f1, 3)}`,
      `Readability on linkedom: ${fmt(extraction.baseline.pagesPerSecond)} pages/s, F1 ` +
        `${fmt(extraction.baseline.f1, 3)}`,
      `${fmt(extraction.pagesPerSecond / extraction.baseline.pagesPerSecond, 2)}×`,
      '≥ 40 pages/s',
    ],
  ];
  for (const line of [...SERVING_HEADER, ...serving.map((row) => `| ${row.join(' | ')} |`)]) console.log(line);
  console.log('\n| measure | Fetchdown | baseline (same run) | ratio | target |');
  console.log('|---|---|---|---|---|');
  for (const row of [...rows, ...fetchersRows(fetchers)]) console.log(`| ${row.join(' | ')} |`);
  if (extraction.tokensPerByte !== undefined)
    console.log(`\nCalibrated tokens per HTML byte (for /estimate): ${extraction.tokensPerByte.toFixed(4)}`);
} finally {
  servers.stop();
}

// Issue 14's rows (extraction threads: head of line, both cores) start two API processes of their own; issue 17's
// query and estimate tables serve the WCXB dev pages from a site of their own.
await import('./threads.js');
await import('./query.js');
await import('./estimate.js');
