// List items that hold blocks (cards of a listing: a heading, a byline div, a date span) as paragraphs mdream
// separates. Inside a list item mdream neither breaks nor spaces at a block's edge: `<li><div>A</div><span> on</span>`
// gives `- Aon` and `<li><h4>T</h4><div>A</div>` the heading `#### T A`. Paragraphs it does separate.
import { retag, unwrap } from '../dom.js';

const BLOCKS = new Set([
  'ADDRESS',
  'ARTICLE',
  'BLOCKQUOTE',
  'DETAILS',
  'DIV',
  'DL',
  'FIELDSET',
  'FIGURE',
  'FOOTER',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HGROUP',
  'HR',
  'MAIN',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'TABLE',
  'UL',
]);
/** Blocks that only group what they hold: looked through, or made a paragraph when they hold no block. */
const GENERIC = new Set(['ARTICLE', 'DIV', 'FOOTER', 'HEADER', 'HGROUP', 'MAIN', 'SECTION']);

/**
 * mdream also runs a paragraph into the next when whitespace ends it, even inside a link's span
 * (`<p><span><a>A</a> </span></p><p>on</p>` gives `Aon`): the text at both edges is trimmed, however deep.
 */
function trimEdges(paragraph: Element): Element {
  for (const edge of ['firstChild', 'lastChild'] as const) {
    for (;;) {
      let node = paragraph[edge];
      while (node?.nodeType === 1 && node[edge]) node = node[edge];
      if (node?.nodeType !== 3) break;
      node.nodeValue = edge === 'firstChild' ? (node.nodeValue ?? '').trimStart() : (node.nodeValue ?? '').trimEnd();
      if (node.nodeValue !== '') break;
      node.remove();
    }
  }
  return paragraph;
}

/** Whitespace and line breaks alone make no paragraph. */
const holdsContent = (node: ChildNode) =>
  (node.textContent ?? '').trim() !== '' || (node.nodeType === 1 && (node as Element).tagName !== 'BR');

const isBlock = (node: ChildNode): node is Element => node.nodeType === 1 && BLOCKS.has((node as Element).tagName);

/** Each run of inline content beside a block becomes a paragraph; generic blocks are separated the same way. */
function separate(container: Element): void {
  const children = Array.from(container.childNodes);
  if (!children.some(isBlock)) {
    if (container.tagName !== 'LI') trimEdges(retag(container, 'p'));
    return;
  }
  let run: ChildNode[] = [];
  for (const node of [...children, null]) {
    if (node !== null && !isBlock(node)) {
      run.push(node);
      continue;
    }
    if (run.some(holdsContent)) {
      const paragraph = container.ownerDocument.createElement('p');
      run[0]!.before(paragraph);
      paragraph.append(...run);
      trimEdges(paragraph);
    }
    run = [];
    if (node === null) continue;
    if (GENERIC.has(node.tagName)) separate(node);
    else if (node.tagName === 'P') trimEdges(node);
  }
}

const BLOCK_SELECTOR = Array.from(BLOCKS, (tag) => tag.toLowerCase()).join(', ');

export function separateListItemBlocks(root: Element): void {
  // A span around blocks (`<li><span><div>A</div><div>B</div></span>`) would hide them from the pass below, though a
  // browser still shows them as blocks.
  for (const span of Array.from(root.querySelectorAll('li span'))) if (span.querySelector(BLOCK_SELECTOR)) unwrap(span);
  for (const item of Array.from(root.querySelectorAll('li')))
    if (Array.from(item.childNodes).some(isBlock)) separate(item);
}
