// Collapsed disclosures (accordions: a product's details, a category's buying guide, an FAQ): the reader opens each
// with a click, so their text is the page's content, but a closed panel is hidden (`hidden`, `aria-hidden`,
// `display: none`) and the hidden-element rules dropped it. Only panels a control names as the WAI-ARIA disclosure
// pattern has it (`aria-expanded="false"` and `aria-controls`), or as the accordion pattern has it when the control
// states no expanded state (a `role="region"` panel labelled by its control), and only panels of prose: a menu's
// dropdown is links.
import { compactLength } from '../page-share.js';

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:;|$)/gi;
/** Above this share of link text a panel is a menu's dropdown, not a disclosure of content. */
const MAX_LINK_SHARE = 0.5;
/** Controls inside these are the page's chrome (a mega menu, a header's account panel). */
const CHROME = 'nav, header, footer, [role="navigation"], [role="menu"], [role="menubar"]';

function linkShare(el: Element): number {
  const all = compactLength(el.textContent);
  if (all === 0) return 1;
  let links = 0;
  for (const a of el.querySelectorAll('a')) links += compactLength(a.textContent);
  return links / all;
}

/** An accordion's panel: a region its control labels. */
function isLabelledRegion(panel: Element, control: Element): boolean {
  return (
    panel.getAttribute('role') === 'region' && control.id !== '' && panel.getAttribute('aria-labelledby') === control.id
  );
}

/** Shows the closed panels under root that a collapsed control names and that hold prose. */
export function showCollapsedPanels(root: Element): void {
  const doc = root.ownerDocument;
  for (const control of root.querySelectorAll(
    '[aria-expanded="false"][aria-controls], [aria-controls]:not([aria-expanded])',
  )) {
    if (control.closest(CHROME)) continue;
    const stated = control.hasAttribute('aria-expanded');
    for (const id of (control.getAttribute('aria-controls') ?? '').split(/\s+/)) {
      const panel = id ? doc.getElementById(id) : null;
      if (!panel || panel.closest(CHROME) || linkShare(panel) > MAX_LINK_SHARE) continue;
      if (!stated && !isLabelledRegion(panel, control)) continue;
      // A collapse animation's wrapper between the control and its panel hides it (Chakra UI's `.chakra-collapse`).
      for (let el: Element | null = panel; el && !el.contains(control); el = el.parentElement) show(el);
    }
  }
}

function show(el: Element): void {
  el.removeAttribute('hidden');
  if (el.getAttribute('aria-hidden') === 'true') el.removeAttribute('aria-hidden');
  const style = el.getAttribute('style');
  if (style) el.setAttribute('style', style.replace(HIDDEN_STYLE, ';'));
}
