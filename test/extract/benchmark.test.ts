// Extraction quality as a regression test: the 181 labelled pages of shared/bench/extraction, scored with the
// benchmark's own metric on `text`, must stay at the targets of issue 3 (F1 ≥ 0.970, P ≥ 0.95, R ≥ 0.975).
// The pages are extracted on extraction threads, as fetches extract them, and must match this thread's extraction
// byte for byte. The benchmark sits beside the checkout (CI clones with shared/ beside it): missing, it skips, or
// fails under CI=true.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { benchmarkDir, loadBenchmarkPages, scorePredictions, type Predictions } from '../../bench/benchmark-pages.js';
import { createConversions, type Extraction } from '../../src/fetchers/conversions.js';
import { loadConfig } from '../../src/config.js';
import { documentOptions } from '../../src/fetchers/index.js';

const TARGET = { f1: 0.97, precision: 0.95, recall: 0.975 };
const missing = benchmarkDir() === null;
const OPTIONS = {
  queueMax: 1000,
  timeoutMs: 60_000,
  wallTimeoutMs: 600_000,
  maxTasks: 1000,
  heapMb: 1024,
  nice: 0,
  documents: documentOptions(loadConfig({})),
};

function contentOf(extraction: Extraction) {
  assert.ok(extraction.ok, 'extraction failed');
  return extraction.content;
}

test(
  'extraction scores at least the targets on the 181 benchmark pages',
  { skip: missing && process.env.CI !== 'true' && 'shared/bench/extraction is not beside this checkout' },
  async () => {
    assert.ok(!missing, 'shared/bench/extraction is not beside this checkout (required under CI=true)');
    const { pages, truth } = loadBenchmarkPages();
    const threads = createConversions({ ...OPTIONS, workers: 2 });
    const here = createConversions({ ...OPTIONS, workers: 0 });
    after(() => threads.close());
    const extracted = await Promise.all(pages.map((page) => threads.extract(page.html, page.url)));
    const predictions: Predictions = {};
    const differ: string[] = [];
    for (const [i, page] of pages.entries()) {
      const pooled = contentOf(extracted[i]!);
      predictions[page.id] = { articleBody: pooled.text };
      if (JSON.stringify(pooled) !== JSON.stringify(contentOf(await here.extract(page.html, page.url))))
        differ.push(page.id);
    }
    assert.deepEqual(differ, [], 'pages whose extraction on a thread differs from the same in this thread');
    const score = await scorePredictions(truth, predictions);
    const figures = `F1 ${score.f1.toFixed(4)}, P ${score.precision.toFixed(4)}, R ${score.recall.toFixed(4)}`;
    assert.ok(score.f1 >= TARGET.f1, `F1 below target: ${figures}`);
    assert.ok(score.precision >= TARGET.precision, `precision below target: ${figures}`);
    assert.ok(score.recall >= TARGET.recall, `recall below target: ${figures}`);
    // No page may come back empty: that is a crash or a lost article, not a weak extraction.
    const empty = pages.filter((page) => predictions[page.id]!.articleBody.trim() === '').map((page) => page.id);
    assert.deepEqual(empty, []);
  },
);
