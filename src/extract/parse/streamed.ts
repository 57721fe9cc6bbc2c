// React's streamed server rendering (Next.js and others): a Suspense boundary first goes out as its fallback
// ("Loading…") after an empty <template id="B:n">, and its content comes later in the page as <div hidden id="S:n">,
// which an inline script moves into place. Scripts never run here, so the content sat hidden at the end of the body and
// was dropped with the hidden elements. This does the scripts' move: each segment replaces its boundary's fallback.

/** Boundary comments as parse.ts keeps them: `<!--$?-->` pending, `<!--$-->` done, `<!--$!-->` failed, `<!--/$-->`. */
const MARKER = 'template[data-suspense]';
const OPENERS = new Set(['$', '$?', '$!']);

/** Pages that stream: parse.ts keeps the boundary comments only for them. */
export function streamsSuspense(html: string): boolean {
  return html.includes('<template id="B:') || html.includes('<template id="P:');
}

/** A boundary comment as an element the DOM keeps (comments are cut before parsing); '' for any other comment. */
export function suspenseMarker(comment: string): string {
  return OPENERS.has(comment) || comment === '/$' ? `<template data-suspense="${comment}"></template>` : '';
}

/** Removes the fallback after a boundary's template: its siblings up to the boundary's end marker (nesting counted). */
function removeFallback(template: Element): void {
  const opener = template.previousElementSibling;
  if (opener?.getAttribute('data-suspense') !== '$?') return;
  const fallback: ChildNode[] = [];
  let depth = 0;
  for (let node = template.nextSibling; node; node = node.nextSibling) {
    const marker = node.nodeType === 1 ? (node as Element).getAttribute('data-suspense') : null;
    if (marker === '/$' && depth-- === 0) {
      for (const el of fallback) el.remove();
      return;
    }
    if (marker !== null && OPENERS.has(marker)) depth++;
    fallback.push(node);
  }
  // No end marker: the fallback's extent is unknown, so it stays.
}

/**
 * Moves each streamed segment (`div[hidden]#S:n`) to its boundary (`template#B:n`) or placeholder (`template#P:n`),
 * as React's `$RC` and `$RS` scripts do, then drops the boundary markers. Segment and boundary share their number.
 */
export function revealStreamedSegments(doc: Document): void {
  const body = doc.body;
  if (!body) return;
  const targets = new Map<string, Element>();
  for (const template of body.querySelectorAll('template[id]')) targets.set(template.id, template);
  if (targets.size === 0) return;
  for (const segment of body.querySelectorAll('div[hidden][id^="S:"]')) {
    const suffix = segment.id.slice(2);
    const target = targets.get(`B:${suffix}`) ?? targets.get(`P:${suffix}`);
    if (!target?.parentNode || !segment.isConnected || segment.contains(target)) continue;
    if (target.id.startsWith('B:')) removeFallback(target);
    target.replaceWith(...segment.childNodes);
    segment.remove();
  }
  for (const marker of body.querySelectorAll(MARKER)) marker.remove();
}
