// Definition lists and <details>, which GFM has no form for. A term becomes a bold line and each of its definitions a
// line starting with `: ` right under it: the definition-list syntax of Pandoc and PHP Markdown Extra, which GFM shows
// as one paragraph ("**Term** : definition"), readable either way. A definition's further blocks follow as blocks.
import { retag, unwrap } from '../dom.js';
import { createVerbatim } from '../markdown/verbatim.js';

/** Elements that end the inline start of a definition: what follows them is a block of its own. */
const BLOCK = /^(?:P|DIV|UL|OL|PRE|TABLE|BLOCKQUOTE|H[1-6]|FIGURE|DL|SECTION|HR)$/;
/** What a first paragraph may not hold to be a definition's line. */
const NESTED_BLOCKS = 'p, div, ul, ol, pre, table, blockquote, dl';

/** The inline content a definition starts with (its first paragraph's), and the blocks after it. */
function splitDefinition(dd: Element): { inline: Node[]; blocks: Node[] } {
  const nodes = Array.from(dd.childNodes);
  const firstBlock = nodes.findIndex((node) => node.nodeType === 1 && BLOCK.test((node as Element).tagName));
  if (firstBlock === -1) return { inline: nodes, blocks: [] };
  const lead = nodes.slice(0, firstBlock);
  const block = nodes[firstBlock] as Element;
  const leadIsEmpty = lead.every((node) => (node.textContent ?? '').trim() === '');
  // `<dd><p>text</p></dd>`: the paragraph is the definition's line.
  if (leadIsEmpty && (block.tagName === 'P' || block.tagName === 'DIV') && !block.querySelector(NESTED_BLOCKS)) {
    return { inline: Array.from(block.childNodes), blocks: nodes.slice(firstBlock + 1) };
  }
  return { inline: lead, blocks: nodes.slice(firstBlock) };
}

/** Rewrites every <dl> (see above); <details> becomes its summary as a bold line, then its content. */
export function rewriteDefinitionLists(root: Element): void {
  const doc = root.ownerDocument;
  // Innermost first: a list nested in a definition is blocks by the time its parent is rewritten.
  for (const dl of Array.from(root.querySelectorAll('dl')).reverse()) {
    const out: Node[] = [];
    let line: Element | null = null;
    let lineHasDefinition = false;
    // HTML allows a <div> around each term-and-definitions group.
    const items = Array.from(dl.childNodes).flatMap((child) =>
      child.nodeName === 'DIV' ? Array.from(child.childNodes) : [child],
    );
    for (const node of items) {
      const item = node as Element;
      if (node.nodeName !== 'DT' && node.nodeName !== 'DD') {
        // Anything else a page puts in a list (a stray paragraph, text) stays, in its place.
        if ((node.textContent ?? '').trim() !== '' || node.nodeName === 'IMG') {
          out.push(node);
          line = null;
        }
      } else if (item.tagName === 'DT') {
        if (!line || lineHasDefinition) {
          line = doc.createElement('p');
          out.push(line);
          lineHasDefinition = false;
        } else line.append(createVerbatim(doc, '\n'));
        for (const inner of Array.from(item.querySelectorAll('b, strong, p, div'))) unwrap(inner);
        const term = doc.createElement('strong');
        term.append(...Array.from(item.childNodes));
        line.append(term);
      } else if (item.tagName === 'DD') {
        const { inline, blocks } = splitDefinition(item);
        if (inline.some((node) => (node.textContent ?? '').trim() !== '' || node.nodeName === 'IMG')) {
          if (!line) {
            line = doc.createElement('p');
            out.push(line);
          }
          line.append(createVerbatim(doc, line.hasChildNodes() ? '\n: ' : ': '), ...inline);
        }
        lineHasDefinition = true;
        if (blocks.length > 0) {
          out.push(...blocks);
          line = null;
        }
      }
    }
    dl.replaceWith(...out);
  }
  // Terms and definitions left outside any list by Readability's rewriting become paragraphs too.
  for (const el of Array.from(root.querySelectorAll('dd'))) retag(el, 'p');
  for (const el of Array.from(root.querySelectorAll('dt, summary'))) {
    const p = retag(el, 'p');
    const strong = doc.createElement('strong');
    strong.append(...Array.from(p.childNodes));
    p.append(strong);
  }
  for (const el of Array.from(root.querySelectorAll('details'))) unwrap(el);
}
