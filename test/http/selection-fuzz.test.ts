// Issue 31: CSS selectors of every form the engine reads (and many it does not) as include and as exclude on POST
// /fetch. Whatever a caller sends, the answer is content, a {detail, code} error or a 422 in FastAPI's shape: never a
// 5xx. The list (helpers/selectors.ts, which the fuzz of every route draws from too) is fixed, so a failure names a
// selector that fails again.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorShapeProblem } from '../helpers/error-shapes.js';
import { SELECTORS } from '../helpers/selectors.js';
import { startSiteAndApp } from '../helpers/test-app.js';

/** Why `res` is not an acceptable answer to a selection, or null when it is. */
function problemWith(res: { status: number; body: any }): string | null {
  const { status, body } = res;
  if (status === 200) {
    const selection = body?.fetch_info?.selection;
    if (typeof body?.markdown !== 'string' || typeof selection?.applied !== 'boolean') return 'a 200 without content';
    return null;
  }
  if (status < 400 || status >= 500) return `status ${status}`;
  return errorShapeProblem(status, body);
}

const { site, api } = await startSiteAndApp();

describe('include and exclude: any selector', () => {
  test(`${SELECTORS.length} selectors of every form: content, a 4xx or a 422, never a 5xx`, async () => {
    assert.ok(SELECTORS.length >= 150, `${SELECTORS.length} selectors`);
    const url = site.url('/article');
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    for (const field of ['include', 'exclude'] as const) {
      // Four at a time: the extraction thread's queue is exercised, and the run stays short.
      for (let i = 0; i < SELECTORS.length; i += 4) {
        const batch = SELECTORS.slice(i, i + 4);
        const answers = await Promise.all(batch.map((selector) => api.post('/fetch', { url, [field]: [selector] })));
        answers.forEach((res, j) => {
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const problem = problemWith(res);
          if (problem) failures.push(`${field} ${JSON.stringify(batch[j])}: ${problem}: ${res.text.slice(0, 200)}`);
        });
      }
    }
    assert.deepEqual(failures, []);
    // The list holds both kinds: selectors that run and selectors refused.
    assert.ok(statuses.get(200) && statuses.get(422), JSON.stringify([...statuses]));
  });
});
