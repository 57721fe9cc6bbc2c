// Footnotes as GFM footnotes: a reference (`<sup><a href="#fn1">1</a></sup>`) becomes `[^1]`, and its note becomes
// `[^1]: text` without the "↩" links back. A pair counts as a footnote only when the note links back to the reference,
// as Pandoc, kramdown, GitHub, WordPress and MediaWiki all write them; anything else stays as it is.
import { unwrap } from '../dom.js';
import { createVerbatim } from '../markdown/verbatim.js';

/** What a note may hold to become one `[^n]: text` line; notes with lists, code or tables stay as the page has them. */
const NOTE_BLOCKS = 'pre, table, ul, ol, blockquote, h1, h2, h3, h4, h5, h6, dl, figure';
/** A reference shows a short mark ("1", "[12]", "note 3", "*"); longer link text is a link to a section. */
const MAX_MARK = 12;
/** A note is a sentence or a paragraph or two; a longer target is a section that links back to a table of contents. */
const MAX_NOTE = 3000;
/** Marks left before a note's text by its links back: MediaWiki's "^ a b", "↑". */
const BACKLINK_MARK = /^[\s^↑↩\u00a0]+/;

interface Reference {
  /** The element the `[^n]` replaces: the <sup> around the link, or the link. */
  marker: Element;
  note: Element;
  label: string;
}

/** The id a same-page link points at, or null for any other link. */
function targetId(href: string, pageUrl: string): string | null {
  const hash = href.indexOf('#');
  if (hash === -1 || hash === href.length - 1) return null;
  if (hash > 0) {
    try {
      const url = new URL(href, pageUrl);
      const page = new URL(pageUrl);
      if (url.origin + url.pathname + url.search !== page.origin + page.pathname + page.search) return null;
    } catch {
      return null;
    }
  }
  try {
    return decodeURIComponent(href.slice(hash + 1));
  } catch {
    return href.slice(hash + 1);
  }
}

/** The <sup> a reference link sits alone in (`<sup><a>1</a></sup>`, `<sup>[<a>1</a>]</sup>`), else the link. */
function markerOf(link: Element): Element {
  const sup = link.closest('sup');
  if (!sup) return link;
  const outside = (sup.textContent ?? '').replace(link.textContent ?? '', '');
  return /^[\s[\]()]*$/.test(outside) ? sup : link;
}

/** Ids by which the note can link back to a reference: the link's, its <sup>'s, and what lies between. */
function idsOf(link: Element, marker: Element): Set<string> {
  const ids = new Set<string>();
  for (let el: Element | null = link; el; el = el.parentElement) {
    if (el.id) ids.add(el.id);
    if (el === marker) break;
  }
  return ids;
}

/** The label a reference shows (`[1]` → `1`, `note 2` → `note-2`) when that is a usable footnote label. */
function labelFromText(text: string): string | null {
  const label = text
    .replace(/[[\]()]/g, '')
    .trim()
    .replace(/\s+/g, '-');
  return /^[\p{L}\p{N}_-]{1,20}$/u.test(label) ? label : null;
}

function isNoteShaped(note: Element): boolean {
  if ((note.textContent ?? '').length > MAX_NOTE || note.querySelector(NOTE_BLOCKS)) return false;
  const list = note.tagName === 'LI' ? note.parentElement : null;
  return note.tagName === 'LI' ? list?.tagName === 'OL' || list?.tagName === 'UL' : /^(?:P|DIV)$/.test(note.tagName);
}

/** The note's text on one line: its paragraphs joined by a space, the links back removed. */
function rewriteNote(note: Element, label: string, backlinks: Element[]): Element {
  const doc = note.ownerDocument;
  for (const link of backlinks) {
    // A backlink wrapped in <sup><b>…</b></sup> (MediaWiki) leaves empty wrappers behind.
    let gone: Element = link;
    while (
      gone.parentElement &&
      gone.parentElement !== note &&
      (gone.parentElement.textContent ?? '').trim() === (link.textContent ?? '').trim()
    ) {
      gone = gone.parentElement;
    }
    gone.remove();
  }
  for (const block of Array.from(note.querySelectorAll('p, div'))) {
    block.after(doc.createTextNode(' '));
    unwrap(block);
  }
  // The first text left, wherever it sits (MediaWiki's "^ " is in a <span> of its own).
  const walker = doc.createTreeWalker(note, 4);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    text.nodeValue = (text.nodeValue ?? '').replace(BACKLINK_MARK, '');
    if (text.nodeValue !== '') break;
  }
  const line = doc.createElement('p');
  line.append(createVerbatim(doc, `[^${label}]: `), ...Array.from(note.childNodes));
  return line;
}

export function rewriteFootnotes(root: Element, pageUrl: string): void {
  // Same-page links and the id each points at; a reference and its backlink make two at least.
  const targets = new Map<Element, string>();
  const linksTo = new Map<string, Element[]>();
  for (const link of Array.from(root.getElementsByTagName('a'))) {
    const href = link.getAttribute('href') ?? '';
    const id = href.includes('#') ? targetId(href, pageUrl) : null;
    if (id === null) continue;
    targets.set(link, id);
    const others = linksTo.get(id);
    if (others) others.push(link);
    else linksTo.set(id, [link]);
  }
  if (targets.size < 2) return;
  const byId = new Map<string, Element>();
  for (const el of Array.from(root.querySelectorAll('[id]'))) if (!byId.has(el.id)) byId.set(el.id, el);
  const references: Reference[] = [];
  const backlinks = new Map<Element, Element[]>();
  const labels = new Map<Element, string>();
  const used = new Set<string>();
  for (const [link, id] of targets) {
    const target = byId.get(id);
    const mark = (link.textContent ?? '').replace(/[[\]()\s]/g, '');
    if (!target || target.contains(link) || mark === '' || mark.length > MAX_MARK) continue;
    const note = target.closest('li') ?? target;
    if (note.contains(link) || !isNoteShaped(note)) continue;
    const marker = markerOf(link);
    const back = [...idsOf(link, marker)].flatMap((refId) =>
      (linksTo.get(refId) ?? []).filter((el) => note.contains(el)),
    );
    if (back.length === 0) continue;
    backlinks.set(note, [...new Set([...(backlinks.get(note) ?? []), ...back])]);
    let label = labels.get(note);
    if (!label) {
      const wanted = labelFromText(link.textContent ?? '') ?? String(labels.size + 1);
      label = wanted;
      for (let n = 2; used.has(label); n++) label = `${wanted}-${n}`;
      labels.set(note, label);
      used.add(label);
    }
    references.push({ marker, note, label });
  }
  if (references.length === 0) return;
  const doc = root.ownerDocument;
  for (const { marker, label } of references) marker.replaceWith(createVerbatim(doc, `[^${label}]`));
  // A note in a list moves before the list, in the list's order; a list that also holds other items keeps them.
  for (const note of labels.keys()) {
    // Gone already when its list was done for an earlier note.
    if (!root.contains(note)) continue;
    const list = note.tagName === 'LI' ? note.parentElement : null;
    if (!list) {
      note.replaceWith(rewriteNote(note, labels.get(note)!, backlinks.get(note) ?? []));
      continue;
    }
    for (const item of Array.from(list.children)) {
      const label = labels.get(item);
      if (!label) continue;
      list.before(rewriteNote(item, label, backlinks.get(item) ?? []));
      item.remove();
    }
    if (!list.querySelector('li')) list.remove();
  }
}
