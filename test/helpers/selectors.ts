// CSS selectors of every form the engine reads (and many it does not), for include and exclude: elements, the root,
// combinators, pseudo-classes, nth- forms, attribute operators, namespaces, pseudo-elements, broken syntax, escapes,
// Unicode, and lengths up to the 200-character limit and past it. A fixed list, so a failure names a selector that
// fails again.

const nest = (open: string, inner: string, depth: number) => open.repeat(depth) + inner + ')'.repeat(depth);

export const SELECTORS: string[] = [
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
