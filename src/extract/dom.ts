// The two DOM edits every cleaning pass makes: an element replaced by its children, or by another tag around them.

/** Replaces el by its children. */
export function unwrap(el: Element): void {
  el.replaceWith(...Array.from(el.childNodes));
}

/** Replaces el by a new `tag` element holding the same children. */
export function retag(el: Element, tag: string): Element {
  const replacement = el.ownerDocument.createElement(tag);
  replacement.append(...Array.from(el.childNodes));
  el.replaceWith(replacement);
  return replacement;
}
