// PDF layout from positioned runs: lines, hyphenation, headings, tables, lists, running heads, column order.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildLines, joinLines, layoutPages, type TextRun } from '../../src/fetchers/pdf-layout.js';

/** A run at (x, y) in size `size`; width ~0.5 em per character, as in a proportional font. */
const run = (str: string, x: number, y: number, size = 10, eol = false): TextRun => ({
  str,
  x,
  y,
  size,
  width: str.length * size * 0.5,
  eol,
});

/** Lines of body text down a column from y, 12 pt apart. */
const column = (lines: string[], x: number, y: number, size = 10) =>
  lines.map((text, i) => run(text, x, y - i * 12, size, true));

describe('joinLines', () => {
  test('re-joins a word hyphenated at the line end', () =>
    assert.equal(joinLines(['its fruit never sweet-', 'ens properly']), 'its fruit never sweetens properly'));
  test('keeps the hyphen of a compound the document writes elsewhere', () =>
    assert.equal(joinLines(['a south-', 'facing balcony'], new Set(['south-facing'])), 'a south-facing balcony'));
  test('keeps a hyphen before a capital, without a space', () =>
    assert.equal(joinLines(['the LEFT-', 'END marker']), 'the LEFT-END marker'));
  test('joins ordinary lines with a space', () =>
    assert.equal(joinLines(['one line', 'and the next']), 'one line and the next'));
});

describe('buildLines', () => {
  test('runs on one baseline make a line; a wide gap makes cells; spaces pdf.js omitted come back', () => {
    const lines = buildLines([
      run('Hello', 0, 100),
      run('world', 28, 100),
      run('Cell', 200, 100, 10, true),
      run('Next', 0, 88),
    ]);
    assert.equal(lines.length, 2);
    assert.deepEqual(
      lines[0]!.cells.map((c) => c.text),
      ['Hello world', 'Cell'],
    );
  });
});

describe('layoutPages', () => {
  test('headings by size, paragraphs by gaps, a table by alignment, a list by bullets', () => {
    const runs: TextRun[] = [
      run('Annual Report', 50, 800, 24, true),
      run('Results', 50, 760, 16, true),
      ...column(
        ['Sales grew in every region this year, led by the north', 'where two new stores opened in the spring.'],
        50,
        730,
      ),
      ...column(['A second paragraph follows after a blank line.'], 50, 690),
      run('Region', 50, 650, 10),
      run('Sales', 200, 650, 10),
      run('Growth', 350, 650, 10, true),
      run('North', 50, 636, 10),
      run('120', 200, 636, 10),
      run('12%', 350, 636, 10, true),
      run('South', 50, 622, 10),
      run('80', 200, 622, 10),
      run('3%', 350, 622, 10, true),
      ...column(['• First point', '• Second point'], 50, 590),
    ];
    const { pages, firstHeading } = layoutPages([runs]);
    assert.equal(firstHeading, 'Annual Report');
    assert.equal(
      pages[0],
      [
        '# Annual Report',
        '## Results',
        'Sales grew in every region this year, led by the north where two new stores opened in the spring.',
        'A second paragraph follows after a blank line.',
        '| Region | Sales | Growth |\n| --- | --- | --- |\n| North | 120 | 12% |\n| South | 80 | 3% |',
        '- First point\n- Second point',
      ].join('\n\n'),
    );
  });

  test('running heads and page numbers are dropped; "Chapter N" headings are not', () => {
    const pages = [1, 2, 3, 4].map((n) => [
      run(`Chapter ${n}`, 50, 780, 16, true),
      ...column([`Body text of chapter ${n} that says something.`], 50, 750),
      run('The Quarterly Journal', 50, 820, 8, true),
      run(String(n), 290, 20, 8, true),
    ]);
    const { pages: md } = layoutPages(pages);
    for (const [i, page] of md.entries()) {
      assert.equal(page, `## Chapter ${i + 1}\n\nBody text of chapter ${i + 1} that says something.`);
    }
  });

  test('a running head repeated on both pages of a two-page document is dropped; one page keeps its lines', () => {
    const page = (n: number) => [
      run('Field notes', 50, 820, 8, true),
      ...column([`Body text of page ${n} that says something.`], 50, 750),
      run(String(n), 290, 20, 8, true),
    ];
    assert.deepEqual(layoutPages([page(1), page(2)]).pages, [
      'Body text of page 1 that says something.',
      'Body text of page 2 that says something.',
    ]);
    assert.deepEqual(layoutPages([page(1)]).pages, ['Field notes\n\nBody text of page 1 that says something.']);
  });

  test('a page laid out alone, its neighbours as context: their running head goes, heading sizes compare', () => {
    const page = (n: number, heading: number) => [
      run('The Quarterly Journal', 50, 820, 8, true),
      run(n === 1 ? 'The Journal' : `Section ${n}`, 50, 780, heading, true),
      ...column([`Body text of page ${n} that says something.`], 50, 750),
      run(String(n), 290, 20, 8, true),
    ];
    const { pages } = layoutPages([page(2, 16)], [page(1, 24), page(3, 16)]);
    assert.deepEqual(pages, ['## Section 2\n\nBody text of page 2 that says something.']);
  });

  test('a line of its own at the body size in another font (bold) is a heading; a bold lead-in or code is not', () => {
    const body = (str: string, y: number) => ({ ...run(str, 50, y, 10, true), font: 'serif' });
    const bold = (str: string, y: number) => ({ ...run(str, 50, y, 10, true), font: 'serif-bold' });
    const runs: TextRun[] = [
      body('Sales grew in every region this year, led by the north', 724),
      body('where two new stores opened in the spring, and by the', 712),
      body('south, where the old ones were made larger and lighter', 700),
      body('over the winter months.', 688),
      bold('Costs of the year', 664),
      body('Costs fell in every region but one, where the rent of', 652),
      body('the largest store rose by a fifth when its lease ran out', 640),
      body('in the summer.', 628),
      bold('Note:', 604),
      body('figures are in thousands.', 592),
      run('npm install', 50, 568, 10, true),
      body('installs it.', 544),
    ];
    assert.deepEqual(layoutPages([runs]).pages[0]!.split('\n\n'), [
      'Sales grew in every region this year, led by the north where two new stores opened in the spring, and by the ' +
        'south, where the old ones were made larger and lighter over the winter months.',
      '# Costs of the year',
      'Costs fell in every region but one, where the rent of the largest store rose by a fifth when its lease ran out ' +
        'in the summer.',
      'Note:',
      'figures are in thousands.',
      'npm install',
      'installs it.',
    ]);
  });

  test('a sentence that goes on in the next column stays one paragraph; the left column comes first', () => {
    const left = column(
      ['Left column text that runs on', 'and ends in the middle of a', 'sentence which continues'],
      50,
      700,
    );
    const right = column(['in the right column and ends.', 'Then a new sentence starts.'], 320, 700);
    const { pages } = layoutPages([[...left, ...right]]);
    assert.equal(
      pages[0],
      'Left column text that runs on and ends in the middle of a sentence which continues in the right column and ends. Then a new sentence starts.',
    );
  });
});
