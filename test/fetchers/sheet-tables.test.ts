// The sheet tables every spreadsheet reader shares (documents/tables.ts) and the CSV reader's own choices: empty edges
// dropped, repeats counted rather than expanded, the cap and its note, the delimiter guessed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { guessDelimiter, readCsv } from '../../src/fetchers/documents/csv.js';
import { collectRows, sheetMarkdown } from '../../src/fetchers/documents/tables.js';

const limits = (maxRows: number) => ({ maxEntries: 1, maxUncompressedBytes: 1, maxRows, maxOcrPages: 0 });

test('leading empty rows are skipped, gaps kept as empty rows, trailing empty rows and columns dropped', () => {
  const rows = collectRows(10);
  rows.add(0, ['', '']);
  rows.add(2, ['Crop', 'Kilos', '', '']);
  rows.add(4, ['Beans', '4', '', '']);
  rows.add(5, ['', '', '', ''], 1_000_000);
  assert.equal(
    sheetMarkdown(rows.table('Beds', null)),
    '## Beds\n\n| Crop | Kilos |\n| --- | --- |\n|  |  |\n| Beans | 4 |',
  );
});

test('a repeated row fills up to the cap and no further; the note counts what the file says is left', () => {
  const rows = collectRows(3);
  assert.equal(rows.add(0, ['n']), true);
  assert.equal(rows.add(1, ['7'], 1_000_000), false);
  const table = rows.table(null, 1_000_000);
  assert.equal(table.rows.length, 4);
  assert.equal(table.more, 999_997);
  assert.match(sheetMarkdown(table), /\| 7 \|\n\n_999,997 more rows were left out: a sheet is read up to 3 rows\._$/);
  assert.match(sheetMarkdown(rows.table(null, null)), /_The sheet goes on past 3 rows; the rest were left out\._$/);
});

test('the delimiter is the one found as often on every line, outside quotes', () => {
  assert.equal(guessDelimiter('a,b;c\n1,2;3\n'), ',');
  assert.equal(guessDelimiter('a;b;c\n"1,5";2;3\n"2,5";4;5'), ';');
  assert.equal(guessDelimiter('a\tb, c\td\n1\t2, 3\t4'), '\t');
  assert.equal(guessDelimiter('one column\nonly'), ',');
});

test('a CSV past the cap is parsed no further; rows left are counted with quoted line breaks inside one row', () => {
  const csv = `n,note\n${Array.from({ length: 10 }, (_, i) => `${i},"line\none"`).join('\n')}\n\n`;
  const document = readCsv(csv, limits(4));
  assert.equal(document.truncated, true);
  assert.equal(document.markdown.match(/^\| \d \| line<br>one \|$/gm)?.length, 4);
  assert.match(document.markdown, /_6 more rows were left out/);
  assert.equal(readCsv(csv, limits(10)).truncated, false);
});
