// Code blocks: finds the language that highlighters write into class names, drops their line-number gutters, and
// rewrites each <pre> into the one shape converters understand (<pre><code class="language-x">), since Readability
// strips classes and no converter reads `<pre class="highlight python">`-style markup. Last, each block is written as
// its fenced Markdown, which mdream passes through: mdream would collapse the blank lines inside it.
import { createVerbatim } from '../markdown/verbatim.js';

/** Readability keeps data attributes but not classes, so the language travels in this attribute. */
const LANGUAGE_ATTRIBUTE = 'data-code-language';

const PREFIXED = /^(?:language|lang|highlight-source|highlight)-([a-z0-9][a-z0-9+#._-]*)$/i;

/** Names accepted as bare class tokens (`<pre class="highlight python">`), where any other token may be styling. */
const KNOWN_LANGUAGES = new Set(
  (
    'bash c clojure cpp csharp css dart diff docker dockerfile elixir erlang fortran go ' +
    'graphql groovy haskell html ini ' +
    ('java javascript js json jsx julia kotlin latex lisp lua make makefile markdown matlab ' +
      'nginx objectivec ocaml perl ') +
    'php powershell python py r ruby rb rust scala scheme scss sh shell sql swift tex toml ts tsx typescript vb xml ' +
    'yaml yml zsh console text plaintext'
  ).split(' '),
);

/** Class tokens that name a highlighter or a feature, never a language. */
const NOT_LANGUAGES = new Set([
  'none',
  'plain',
  'nohighlight',
  'source',
  'text-html-basic',
  'highlight',
  'code',
  'block',
]);

/** Elements that highlighters add beside the code (line-number gutters) and whose text is not code. */
const GUTTER = /(?:^|\s)(?:linenos?|line-?numbers?(?:-rows)?|gutter|lineno)(?:\s|$)/i;

/** Bare tokens are trusted only on the <pre>/<code> itself: on a wrapper `js` or `text` may mean anything. */
function languageFromClass(className: string | null, acceptBare: boolean): string | null {
  if (!className) return null;
  const tokens = className.split(/[\s;]+/).filter(Boolean);
  for (const token of tokens) {
    const name = PREFIXED.exec(token)?.[1]?.toLowerCase();
    if (name && !NOT_LANGUAGES.has(name)) return name;
  }
  if (!acceptBare) return null;
  for (const token of tokens) {
    const name = token.toLowerCase();
    if (KNOWN_LANGUAGES.has(name)) return name;
  }
  return null;
}

function languageOf(el: Element | null | undefined, acceptBare: boolean): string | null {
  if (!el) return null;
  const declared = el.getAttribute('data-lang') ?? el.getAttribute('data-language');
  if (declared && /^[a-z0-9+#._-]{1,30}$/i.test(declared)) return declared.toLowerCase();
  return languageFromClass(el.getAttribute('class'), acceptBare);
}

function isGutter(el: Element | null): boolean {
  return !!el && GUTTER.test(el.getAttribute('class') ?? '');
}

/**
 * Runs before Readability, which strips the classes this reads: removes line-number gutters and marks every <pre>
 * with its language, looking at the code element, the pre and two wrapping elements.
 */
export function prepareCodeBlocks(root: Document | Element): void {
  for (const pre of Array.from(root.getElementsByTagName('pre'))) {
    const cell = pre.closest('td');
    if (isGutter(pre) || isGutter(pre.parentElement) || isGutter(cell)) {
      (isGutter(cell) ? cell! : pre).remove();
      continue;
    }
    for (const el of Array.from(pre.querySelectorAll('[class]'))) if (isGutter(el)) el.remove();
    const parent = pre.parentElement;
    const language =
      languageOf(pre.querySelector('code'), true) ??
      languageOf(pre, true) ??
      languageOf(parent, false) ??
      languageOf(parent?.parentElement, false);
    if (language) pre.setAttribute(LANGUAGE_ATTRIBUTE, language);
  }
}

/** Rebuilds each <pre> as <pre><code class="language-x">raw text</code></pre>; <br> inside it becomes a newline. */
export function rebuildCodeBlocks(root: Element): void {
  const doc = root.ownerDocument;
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    if (pre.parentElement?.closest('pre')) continue;
    for (const br of Array.from(pre.querySelectorAll('br'))) br.replaceWith(doc.createTextNode('\n'));
    const code = doc.createElement('code');
    const language = pre.getAttribute(LANGUAGE_ATTRIBUTE);
    if (language) code.setAttribute('class', `language-${language}`);
    code.textContent = (pre.textContent ?? '').replace(/^\n+/, '').trimEnd();
    pre.replaceChildren(code);
  }
}

/** A fence longer than any run of backticks in the code, so that a ``` inside it does not end the block. */
function fenceFor(code: string): string {
  let longest = 0;
  for (const run of code.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/**
 * Replaces each code block rebuilt by rebuildCodeBlocks by a paragraph holding its fenced Markdown verbatim, so that
 * its text comes out exactly (blank lines, trailing spaces, tabs); inside a list item or a quote, its lines get the
 * item's indentation or the quote's markers on the way out.
 */
export function fenceCodeBlocks(root: Element): void {
  const doc = root.ownerDocument;
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    const code = pre.firstElementChild;
    const text = pre.textContent ?? '';
    if (text.trim() === '') {
      pre.remove();
      continue;
    }
    const language = /(?:^|\s)language-(\S+)/.exec(code?.getAttribute('class') ?? '')?.[1] ?? '';
    const fence = fenceFor(text);
    const block = doc.createElement('p');
    block.append(createVerbatim(doc, `${fence}${language}\n${text}\n${fence}`));
    pre.replaceWith(block);
  }
}
