// Pages that render with a script and give readers without one the whole text in a <noscript> (forum engines that
// serve their posts this way): there the noscript is the page, and everything outside it is a loading screen.
import { unwrap } from '../dom.js';
import { compactLength } from '../page-share.js';

/** A noscript with less text than this says "enable JavaScript" or holds a tracking pixel, not the page's content. */
const MIN_NOSCRIPT_TEXT = 500;

const unwrapped = new WeakSet<Document>();

/**
 * Unwraps (keeps the children of) each <noscript> in the body that holds more text than the rest of the page: the
 * content for readers without JavaScript. Other noscripts stay, and go with the boilerplate later.
 */
export function showNoscriptContent(doc: Document): void {
  const noscripts = Array.from(doc.body?.querySelectorAll('noscript') ?? []);
  if (noscripts.length === 0) return;
  const lengths = noscripts.map((el) => compactLength(el.textContent));
  // Most pages' noscripts are a pixel or a sentence: the whole body's text is only measured for a long one.
  if (!lengths.some((length) => length >= MIN_NOSCRIPT_TEXT)) return;
  const outside = compactLength(doc.body.textContent) - lengths.reduce((sum, length) => sum + length, 0);
  noscripts.forEach((el, i) => {
    if (lengths[i]! < MIN_NOSCRIPT_TEXT || lengths[i]! <= outside || !el.isConnected) return;
    unwrap(el);
    unwrapped.add(doc);
  });
}

/**
 * True when the page's text came out of a noscript: a plain server-rendered copy (posts with their authors and
 * dates, little chrome), which the whole-page extraction keeps as it is, where Readability would clean the authors'
 * lines away as link-dense.
 */
export function showsNoscriptContent(doc: Document): boolean {
  return unwrapped.has(doc);
}
