// Golden files: each test/extract/golden/<name>.html fragment, put in a minimal article page, must give exactly
// <name>.md through extractHtml, run on an extraction thread as fetches run it (src/fetchers/conversions.ts).
// `UPDATE_GOLDEN=1 node --import tsx --test test/extract/golden.test.ts` rewrites the .md files from the current
// output; read the diff before committing it. The README there says where each comes from.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { createConversions } from '../../src/fetchers/conversions.js';
import { loadConfig } from '../../src/config.js';
import { documentOptions } from '../../src/fetchers/index.js';

const conversions = createConversions({
  workers: 1,
  queueMax: 1000,
  timeoutMs: 60_000,
  wallTimeoutMs: 600_000,
  maxTasks: 1000,
  heapMb: 1024,
  nice: 0,
  documents: documentOptions(loadConfig({})),
});
after(() => conversions.close());

const GOLDEN_DIR = new URL('./golden/', import.meta.url);
const PAGE_URL = 'https://example.org/docs/page.html';
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

/**
 * Cases whose .md is the output we want and the pipeline does not give yet, with the reason. They run as `todo`, and
 * UPDATE_GOLDEN leaves their .md alone.
 */
const KNOWN_GAPS: Record<string, string> = {};

/** The fragment as the whole article of a page with nothing else on it; the title is the case's name. */
function pageFor(name: string, fragment: string): string {
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${name.replace(/-/g, ' ')}</title></head>` +
    `<body><main><article>${fragment}</article></main></body></html>`
  );
}

const cases = readdirSync(GOLDEN_DIR)
  .filter((file) => file.endsWith('.html'))
  .map((file) => file.slice(0, -'.html'.length))
  .sort();

test('there are golden cases', () => assert.ok(cases.length >= 15));

for (const name of cases) {
  const gap = KNOWN_GAPS[name];
  test(name, gap ? { todo: gap } : {}, async () => {
    const fragment = readFileSync(new URL(`${name}.html`, GOLDEN_DIR), 'utf8');
    const extracted = await conversions.extract(pageFor(name, fragment), PAGE_URL);
    assert.ok(extracted.ok);
    const markdown = `${extracted.content.markdown}\n`;
    const expectedFile = new URL(`${name}.md`, GOLDEN_DIR);
    if (UPDATE && !gap) writeFileSync(expectedFile, markdown);
    else assert.equal(markdown, readFileSync(expectedFile, 'utf8'));
  });
}
