// Issue 31: CSS selectors of every form the engine reads (and many it does not) as include and as exclude on POST
// /fetch. Whatever a caller sends, the answer is content, a {detail, code} error or a 422 in FastAPI's shape: never a
// 5xx. The list is fixed, so a failure names a selector that fails again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';

const nest = (open: string, inner: string, depth: number) => open.repeat(depth) + inner + ')'.repeat(depth);

const SELECTORS: string[] = [
  // Elements, the root among them, and selectors that match nothing.
  ...['*', 'html', ':root', 'head', 'body', 'title', 'meta', 'p', 'h1', 'main', 'article', 'table', 'img', 'br'],
  ...['#cookie-consent', '.sidebar', '.cookie-banner.sidebar', 'p#x.y', 'custom-element', 'svg'],
  // Combinators.
  ...['main > article', 'h1 + p', 'h2 ~ p', 'article p', 'html > body > *', '* > *', '* + *', '* ~ *', 'body  >  *'],
  ...['ul ul li', 'h1, h2, h3', 'p,table', 'html body main article h1', 'head + body', 'td:last-child + td'],
  // Pseudo-classes.
  ...[':first-child', ':last-child', ':only-child', ':empty', ':first-of-type', ':last-of-type', ':only-of-type'],
  ...[':not(p)', ':not(:root)', ':not(*)', ':not(html, body)', ':is(h1, h2)', ':where(p)', ':is()', ':where()'],
  ...[':has(> p)', ':has(+ p)', ':has(~ *)', ':has(p)', 'html:has(body p)', ':root:has(:has(:has(p)))'],
  ...[':has(:not(:has(*)))', 'body:has(> header):not(:has(.nothing))', ':checked', ':disabled', ':enabled'],
  ...[':link', ':any-link', ':hover', ':focus', ':active', ':visited', ':target', ':scope', ':lang(en)', ':dir(ltr)'],
  ...[':contains(Tomatoes)', ':icontains(tomatoes)', ':defined', ':read-only', ':required', ':placeholder-shown'],
  ...[':unknown-pseudo', ':nth-child', ':HAS(p)', ':Not(p)'],
  // nth- forms.
  ...[':nth-child(1)', ':nth-child(odd)', ':nth-child(even)', ':nth-child(2n+1)', ':nth-child(-n+3)'],
  ...[':nth-child(n)', ':nth-child(0n+0)', ':nth-child( 3n - 2 )', ':nth-child(2n+1 of p)', ':nth-child(-1)'],
  ...[':nth-child(999999999)', ':nth-child(n+1000)', ':nth-last-child(1)', ':nth-of-type(2)', 'li:nth-of-type(2n)'],
  ...[':nth-last-of-type(odd)', ':nth-child()', ':nth-child(n+)', ':nth-child(2n+1n)', ':nth-child(99999999999999999)'],
  // Attribute selectors with every operator, case flags and odd spacing.
  ...['[lang]', '[lang=en]', '[lang~=en]', '[lang|=en]', '[href^="/"]', '[href$=".jpg"]', '[href*=guide]'],
  ...['[class="sidebar" i]', '[class="SIDEBAR" s]', '[alt=""]', '[data-x]', '[ lang = "en" ]', "[href^='/g']"],
  ...['[href!=x]', '[lang=]', '[=en]', '[lang="en"', '[lang=en i s]', 'a[href]:not([href^="/"])'],
  // Namespaces.
  ...['*|*', '|p', '*|p', '[*|lang]', '[|lang]', 'svg|rect', 'ns|*', '[xml|lang]'],
  // Pseudo-elements.
  ...['::before', 'p::after', 'p::first-line', '::selection', ':before'],
  // Not selectors at all.
  ...['div[', '###', '>', 'p >', '+ p', 'a,,b', ',', '[', ']', '()', ')', '"string"', '\\', '@media', '{}'],
  ...['p { color: red }', '/* comment */ p', 'p /* c */', '&', '& p', 'p !important', '1p', '.1', '#', '.'],
  ...['..a', 'p:', '::', '*:*', 'a||b', 'a |b'],
  // Whitespace and escapes.
  ...['  p  ', '\tp\n', 'p\\:x', '#\\31 23', '.a\\.b', '\\70', '.\\', 'p\\', ' ', '\u00a0p'],
  // Unicode.
  ...['.café', '#日本語', '[title="ñ"]', '.\\1F600', '.😀', 'p:not(.ü)', '\u0000', 'p\u0000', '\uFFFD', 'p\u200Bq'],
  ...['.\u202Eevil', 'ρ', '[lang="ﷺ"]', '\uD800'],
  // Long, up to the 200-character limit and past it.
  nest(':not(', 'p', 33),
  nest(':has(', 'p', 33),
  nest(':is(', 'p', 39),
  `${'div '.repeat(49)}p`,
  `${'*>'.repeat(99)}*`,
  `${'* '.repeat(99)}*`,
  `${'p,'.repeat(99)}p`,
  `${':not(p)'.repeat(28)}`,
  `${':has(*)'.repeat(28)}`,
  `${'.a'.repeat(100)}`,
  `[data-${'x'.repeat(180)}]`,
  'p'.repeat(200),
  'a'.repeat(201),
  `${'html:has(p) '.repeat(16)}p`,
  `:is(${Array.from({ length: 40 }, (_, i) => `h${i}`).join(',')})`,
];

interface Answer {
  status: number;
  body: any;
  text: string;
}

/** Why `res` is not an acceptable answer to a selection, or null when it is. */
function problemWith(res: Answer): string | null {
  const { status, body } = res;
  if (status === 200) {
    const selection = body?.fetch_info?.selection;
    if (typeof body?.markdown !== 'string' || typeof selection?.applied !== 'boolean') return 'a 200 without content';
    return null;
  }
  if (status < 400 || status >= 500) return `status ${status}`;
  if (typeof body?.detail === 'string' && typeof body?.code === 'string') return null;
  if (status !== 422 || !Array.isArray(body?.detail) || body.detail.length === 0)
    return `a ${status} of no known shape`;
  const shaped = body.detail.every(
    (item: any) => Array.isArray(item?.loc) && typeof item.msg === 'string' && typeof item.type === 'string',
  );
  return shaped ? null : 'a 422 whose detail is not [{loc, msg, type}]';
}

let site: FixtureSite;
let api: TestApp;
before(async () => {
  site = await startFixtureSite();
  api = await buildTestApp({ after });
});
after(() => site.close());

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
