// The example pages show what the pipeline really answers: every example is run again on the shipped example site
// and must match src/pages/examples/outputs.json (after `npm run examples`, nothing changes).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXAMPLES } from '../../src/pages/examples/catalog.js';
import { loadOutputs } from '../../src/pages/examples/outputs.js';
import { browserSkip, CHROMIUM_PATH } from '../fetchers/chromium.js';
import { runExamples } from './example-runner.js';

test('at least six worked examples, each recorded with its answers', () => {
  const outputs = loadOutputs();
  assert.ok(EXAMPLES.length >= 6);
  assert.deepEqual(Object.keys(outputs).sort(), EXAMPLES.map((e) => e.slug).sort());
  for (const example of EXAMPLES) assert.equal(outputs[example.slug]!.steps.length, example.steps.length, example.slug);
});

test('the recorded answers are what the pipeline gives today (run `npm run examples` after changing it)', async () => {
  const noBrowser = browserSkip();
  if (noBrowser) process.stdout.write(`# the JavaScript example is not re-run: ${noBrowser}\n`);
  const skip = noBrowser ? ['javascript-page'] : [];
  const fresh = await runExamples({ chromiumPath: CHROMIUM_PATH, skip });
  const recorded = loadOutputs();
  for (const example of EXAMPLES) {
    if (skip.includes(example.slug)) continue;
    assert.deepEqual(
      fresh[example.slug],
      recorded[example.slug],
      `${example.slug} no longer matches: run npm run examples`,
    );
  }
  // The examples show real successes (and one failure inside the batch), not error pages.
  for (const slug of Object.keys(fresh)) for (const step of fresh[slug]!.steps) assert.equal(step.status, 200, slug);
});
