// takePart: parts within the budget, cut between blocks (never inside a fence or a table row), chained by offsets
// without losing or repeating content, with an outline of what is left.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { countTokens } from '../../src/tokens/count.js';
import { takePart, withTableHead, type TrimResult } from '../../src/tokens/trim.js';

const BENCH = join(import.meta.dirname, '../../../shared/bench/extraction/scrapinghub');
const truth = JSON.parse(readFileSync(join(BENCH, 'ground-truth.json'), 'utf8')) as Record<
  string,
  { articleBody: string }
>;
const bodies = Object.values(truth).map((page) => page.articleBody);

const MARKDOWN = `# Field guide to tomatoes

Tomatoes are the edible berries of *Solanum lycopersicum*, first grown in western South America.

## Growing

Plant them after the last frost, in full sun, about 60 cm apart.

- Soil: loose, rich in organic matter
- Water: deeply, twice a week
  - more in heat waves
  - less once fruit ripens
- Support: stakes or cages
1. Harden the seedlings off
2. Transplant them deep

\`\`\`python
# not a heading: this is code
def water(plant):

    return plant.soil < 0.3
\`\`\`

~~~
| not | a table |
~~~

## Varieties

| Name | Colour | Days |
|------|--------|------|
| Brandywine | pink | 90 |
| San Marzano | red | 80 |
| Green Zebra | green | 75 |
| Sungold | orange | 65 |

### Heirlooms

Heirloom seeds are open-pollinated and kept for generations: 你好世界，番茄很好吃。😀🍅

## Storage

Keep them at room temperature, stem side down.
`;

/** Every part from offset 0 on, following nextOffset until it is null. */
function readAll(content: string, budget: number): TrimResult[] {
  const parts: TrimResult[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const part = takePart(content, offset, budget);
    parts.push(part);
    assert.ok(part.nextOffset === null || part.nextOffset > offset, `progress at ${offset} with budget ${budget}`);
    offset = part.nextOffset;
  }
  return parts;
}

const withoutSpace = (text: string) => text.replace(/\s+/g, '');

/** [start, end) of each fenced code block, found independently of the code under test. */
function fenceRanges(content: string): [number, number][] {
  const ranges: [number, number][] = [];
  const fence = /^[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?^[ \t]*\1[ \t]*$/gm;
  for (const match of content.matchAll(fence)) ranges.push([match.index, match.index + match[0].length]);
  return ranges;
}

test('a part never exceeds the budget, and its count is exact', () => {
  for (const content of [MARKDOWN, bodies[0]!, bodies[7]!]) {
    const total = countTokens(content);
    for (let budget = 1; budget <= total + 5; budget++) {
      const part = takePart(content, 0, budget);
      assert.ok(part.tokenCount <= budget, `budget ${budget}: ${part.tokenCount} tokens`);
      assert.equal(part.tokenCount, countTokens(part.content));
      assert.equal(part.content, part.content.trimEnd());
      assert.ok(content.startsWith(part.content.slice(0, 1)));
    }
  }
});

test('parts chained by nextOffset cover the whole document once, in order', () => {
  const documents = [MARKDOWN, bodies.slice(0, 12).join('\n\n'), 'single line', '   \n\n  leading space\n\n\n'];
  for (const content of documents) {
    // From 4 tokens on: any character fits (an emoji can take 3), so every part moves forward.
    for (const budget of [4, 5, 8, 13, 21, 50, 120, 400, 5000]) {
      const parts = readAll(content, budget);
      assert.equal(withoutSpace(parts.map((p) => p.content).join('\n\n')), withoutSpace(content), `budget ${budget}`);
      for (const part of parts) assert.ok(part.tokenCount <= budget);
      assert.equal(parts.at(-1)!.truncated, false);
      assert.ok(parts.slice(0, -1).every((p) => p.truncated));
    }
  }
});

test('never cuts inside a code fence or a table row when the block fits', () => {
  const fences = fenceRanges(MARKDOWN);
  assert.equal(fences.length, 2);
  const biggestFence = Math.max(...fences.map(([start, end]) => countTokens(MARKDOWN.slice(start, end))));
  for (let budget = biggestFence + 2; budget <= countTokens(MARKDOWN); budget++) {
    for (const part of readAll(MARKDOWN, budget)) {
      const cut = part.nextOffset;
      if (cut === null) continue;
      for (const [start, end] of fences)
        assert.ok(cut <= start || cut >= end, `budget ${budget}: cut at ${cut} in a fence`);
      assert.match(MARKDOWN.slice(0, cut), /\n[ \t]*$/, `budget ${budget}: cut at ${cut} is not at a line start`);
      const fencesInPart = part.content.match(/^[ \t]*(```|~~~)/gm)?.length ?? 0;
      assert.equal(fencesInPart % 2, 0, `budget ${budget}: a part with half a fence`);
      for (const line of part.content.split('\n').filter((l) => l.startsWith('|'))) {
        assert.ok(line.trimEnd().endsWith('|'), `budget ${budget}: a cut table row`);
      }
    }
  }
});

test('a table keeps its header with its first row, and later rows can start a part', () => {
  const table = MARKDOWN.slice(MARKDOWN.indexOf('| Name'), MARKDOWN.indexOf('### Heirlooms')).trim();
  const rows = table.split('\n');
  const header = rows.slice(0, 3).join('\n');
  const part = takePart(table, 0, countTokens(header) + 1);
  assert.equal(part.content, header);
  assert.ok(table.slice(part.nextOffset!).startsWith('| San Marzano'));
  assert.ok(
    header.startsWith(takePart(table, 0, countTokens(header) - 1).content),
    'else a token-boundary cut of that block',
  );
});

test('cuts before a list item, nested ones included', () => {
  const list = MARKDOWN.slice(MARKDOWN.indexOf('- Soil'), MARKDOWN.indexOf('```python')).trim();
  const items = list.split('\n');
  for (let n = 1; n < items.length; n++) {
    const prefix = items.slice(0, n).join('\n');
    const part = takePart(list, 0, countTokens(prefix));
    assert.equal(part.content, prefix, `${n} items`);
    assert.equal(list.slice(part.nextOffset!), list.slice(prefix.length + 1).trimStart());
  }
});

test('a part does not end on a heading it could leave for the next part', () => {
  const upToGrowing = MARKDOWN.slice(0, MARKDOWN.indexOf('Plant them')).trim();
  const part = takePart(MARKDOWN, 0, countTokens(upToGrowing) + 2);
  assert.ok(!part.content.endsWith('## Growing'));
  assert.ok(MARKDOWN.slice(part.nextOffset!).startsWith('## Growing'));
  assert.deepEqual(part.outline[0], {
    level: 2,
    title: 'Growing',
    tokens: countTokens(section('## Growing', '## Varieties')),
  });
});

function section(from: string, to: string | null): string {
  return MARKDOWN.slice(MARKDOWN.indexOf(from), to === null ? undefined : MARKDOWN.indexOf(to)).trimEnd();
}

test('the outline lists the headings left, with the tokens of each section', () => {
  const part = takePart(MARKDOWN, 0, 30);
  assert.equal(part.truncated, true);
  assert.deepEqual(part.outline, [
    { level: 2, title: 'Growing', tokens: countTokens(section('## Growing', '## Varieties')) },
    { level: 2, title: 'Varieties', tokens: countTokens(section('## Varieties', '### Heirlooms')) },
    { level: 3, title: 'Heirlooms', tokens: countTokens(section('### Heirlooms', '## Storage')) },
    { level: 2, title: 'Storage', tokens: countTokens(section('## Storage', null)) },
  ]);
  // Cut inside "Varieties": the rest of that section comes first, so every cut token is in the outline.
  const later = takePart(MARKDOWN, MARKDOWN.indexOf('| Name'), 10);
  assert.ok(!later.content.includes('Heirlooms') && later.nextOffset !== null);
  const rest = MARKDOWN.slice(later.nextOffset, MARKDOWN.indexOf('### Heirlooms')).trimEnd();
  assert.deepEqual(
    later.outline.map((entry) => [entry.level, entry.title, entry.tokens]),
    [
      [2, 'Varieties (continued)', countTokens(rest)],
      [3, 'Heirlooms', countTokens(section('### Heirlooms', '## Storage'))],
      [2, 'Storage', countTokens(section('## Storage', null))],
    ],
  );
  assert.ok(!part.outline.some((entry) => entry.title.includes('not a heading')), 'a # line in code is no heading');
});

test('closing hashes are not part of a heading title; a section cut midway is listed as continued', () => {
  const content = `# Intro #\n\n${'word '.repeat(50)}\n\n## Next ##\n\nText.`;
  const part = takePart(content, 0, 20);
  const rest = content.slice(part.nextOffset!, content.indexOf('## Next')).trimEnd();
  assert.deepEqual(part.outline, [
    { level: 1, title: 'Intro (continued)', tokens: countTokens(rest) },
    { level: 2, title: 'Next', tokens: countTokens('## Next ##\n\nText.') },
  ]);
});

test('content without headings: the outline is the rest, as one entry at level 0', () => {
  const part = takePart(bodies[3]!, 0, 20);
  assert.equal(part.truncated, true);
  assert.deepEqual(part.outline, [
    { level: 0, title: '(continued)', tokens: countTokens(bodies[3]!.slice(part.nextOffset!).trimEnd()) },
  ]);
});

test('a budget as large as the document returns all of it', () => {
  const total = countTokens(MARKDOWN.trim());
  for (const budget of [total, total + 1, 1_000_000]) {
    assert.deepEqual(takePart(MARKDOWN, 0, budget), {
      content: MARKDOWN.trim(),
      tokenCount: total,
      truncated: false,
      nextOffset: null,
      outline: [],
    });
  }
  assert.deepEqual(takePart(MARKDOWN, 0, null), {
    content: MARKDOWN.trim(),
    tokenCount: total,
    truncated: false,
    nextOffset: null,
    outline: [],
  });
  const rest = MARKDOWN.slice(MARKDOWN.indexOf('## Storage')).trim();
  assert.equal(takePart(MARKDOWN, MARKDOWN.indexOf('## Storage'), null).content, rest);
  assert.equal(takePart(MARKDOWN, MARKDOWN.length + 10, 100).content, '');
});

test('one huge paragraph is cut at a token boundary, whole characters only', () => {
  const paragraph = '番茄是一种很好吃的水果，也是蔬菜。😀🍅👍🏽 Tomatoes, 𠀀𪛔 and ǅ. '.repeat(300);
  const total = countTokens(paragraph);
  for (const budget of [1, 2, 3, 7, 50, 333, 1000]) {
    const part = takePart(paragraph, 0, budget);
    assert.ok(part.tokenCount <= budget);
    assert.equal(part.tokenCount, countTokens(part.content));
    assert.ok(paragraph.startsWith(part.content), `budget ${budget}: a prefix`);
    assert.ok(
      !part.content.includes('\uFFFD') && !/[\uD800-\uDBFF]$/.test(part.content),
      `budget ${budget}: no broken character`,
    );
    assert.ok(budget < 8 || part.tokenCount >= budget - 4, `budget ${budget}: ${part.tokenCount} tokens used`);
    assert.equal(part.truncated, budget < total);
  }
  const parts = readAll(paragraph, 250);
  assert.equal(
    parts
      .map((p) => p.content)
      .join('')
      .replace(/\s/g, ''),
    withoutSpace(paragraph),
  );
});

test('a budget too small for the first character returns an empty part at the same offset', () => {
  const part = takePart('𪛔 rare', 0, 1);
  if (countTokens('𪛔') > 1) assert.deepEqual([part.content, part.nextOffset, part.truncated], ['', 0, true]);
});

test('a part that starts on a later table row repeats the header and separator, within the budget', () => {
  const table = [
    '| Day | Kilos |',
    '| --- | --- |',
    ...Array.from({ length: 60 }, (_, i) => `| ${i + 1} | ${i * 3} |`),
  ];
  const content = `## Harvest\n\n${table.join('\n')}\n\nThe end.`;
  const head = `${table[0]}\n${table[1]}\n`;
  for (const budget of [25, 40, 90]) {
    let offset: number | null = 0;
    const rows: string[] = [];
    while (offset !== null) {
      const part = withTableHead(content, offset, budget, undefined, (room) => takePart(content, offset!, room));
      assert.ok(part.tokenCount <= budget && part.tokenCount === countTokens(part.content), `budget ${budget}`);
      const starts = content.slice(skipped(content, offset));
      if (offset > 0 && starts.startsWith('| ') && !starts.startsWith(table[0]!))
        assert.ok(part.content.startsWith(head), `budget ${budget}: ${part.content.slice(0, 40)}`);
      rows.push(...part.content.split('\n').filter((line) => /^\| \d/.test(line)));
      offset = part.nextOffset;
    }
    assert.deepEqual(rows, table.slice(2), `budget ${budget}: every row once, in order`);
  }
  // Outside a table, and on a table's own header, a part is take's alone.
  assert.deepEqual(
    withTableHead(content, 0, 30, undefined, (room) => takePart(content, 0, room)),
    takePart(content, 0, 30),
  );
});

const skipped = (content: string, offset: number) => offset + (/^\s*/.exec(content.slice(offset))?.[0].length ?? 0);
