// JSON → Markdown fenced as JSON, indented, and cut along its structure: a long array or object is written as several
// fences of whole elements (or members), so a part read with max_tokens ends between two of them, never inside a
// value. Fences do not break a JSON reader's view: joined, their lines are the whole document. A short document, and
// JSON that does not parse, is fenced as it came.
import type { DocumentText } from './types.js';

/** Lines of one fence: big enough that a short document stays one fence, small enough to trim well. */
const FENCE_LINES = 60;
/** Characters under which a document is fenced as it came (a few hundred tokens: no part needs cutting it). */
const AS_IT_CAME = 4000;

const fence = (lines: readonly string[]) => '```json\n' + lines.join('\n') + '\n```';

/** The top-level container's entries, each as indented lines (a comma after all but the last). */
function entryLines(value: unknown[] | Record<string, unknown>): string[][] {
  const entries = Array.isArray(value)
    ? value.map((item) => JSON.stringify(item, null, 2))
    : Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${JSON.stringify(item, null, 2)}`);
  return entries.map((entry, i) =>
    `${entry}${i < entries.length - 1 ? ',' : ''}`.split('\n').map((line) => `  ${line}`),
  );
}

export function readJson(text: string): DocumentText {
  const asItCame = { title: null, markdown: fence([text.trim()]) };
  if (text.length <= AS_IT_CAME) return asItCame;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return asItCame;
  }
  const whole = JSON.stringify(value, null, 2).split('\n');
  if (whole.length <= FENCE_LINES || value === null || typeof value !== 'object')
    return { title: null, markdown: fence(whole) };
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  const fences: string[][] = [[open]];
  for (const lines of entryLines(value as unknown[] | Record<string, unknown>)) {
    const current = fences.at(-1)!;
    if (current.length > 1 && current.length + lines.length > FENCE_LINES) fences.push([...lines]);
    else current.push(...lines);
  }
  fences.at(-1)!.push(close);
  return { title: null, markdown: fences.map(fence).join('\n\n') };
}
