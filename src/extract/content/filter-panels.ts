// A listing's filter panel (facets: sizes, colours, brands, price ranges) is a group of checkboxes or radio buttons,
// each labelled with a word or two. The inputs go as controls; their labels would stay as a run of short lines.
import { compactLength, holdsMostOfPage } from '../page-share.js';

const OPTIONS = 'input[type="checkbox"], input[type="radio"]';
/** Fewer options are a form's consent box or a product's one choice. */
const MIN_OPTIONS = 5;
/** An option's label is a word or two and a count; a block saying more per option is text with a few controls. */
const MAX_TEXT_PER_OPTION = 40;
/** Facets are labels to tick; a block mostly of links is a menu or a grid, left to the link-list rules. */
const MAX_LINK_SHARE = 0.5;

/**
 * Short options without photos, mostly not links: a grid of cards with colour swatches has photos and linked titles,
 * and stays.
 */
function isFilterPanel(el: Element, options: number): boolean {
  const text = compactLength(el.textContent);
  if (text > MAX_TEXT_PER_OPTION * options || el.querySelector('img') !== null || holdsMostOfPage(el)) return false;
  let linked = 0;
  for (const link of el.querySelectorAll('a')) linked += compactLength(link.textContent);
  return linked <= MAX_LINK_SHARE * text;
}

/** Removes the outermost blocks below root that are groups of short options. */
export function removeFilterPanels(root: Element): void {
  for (const child of [...root.children]) {
    const options = child.querySelectorAll(OPTIONS).length;
    if (options < MIN_OPTIONS) continue;
    if (isFilterPanel(child, options)) child.remove();
    else removeFilterPanels(child);
  }
}
