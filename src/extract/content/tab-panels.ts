// Tabbed code samples (one per language or tool): every panel but the chosen one is hidden until the reader clicks
// its tab, but all of them are the page's content, which the hidden-element rules would otherwise drop. Only panels
// labelled by their tab, as the WAI-ARIA tabs pattern has it: unlabelled panels holding code were a service page's
// rotating feature showcase, of which the reader sees one.

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:;|$)/gi;

/** Shows the hidden tab panels (`role="tabpanel"`) under root that hold code and name their tab. */
export function showCodeTabPanels(root: Element): void {
  for (const panel of root.querySelectorAll('[role="tabpanel"]')) {
    if (!panel.hasAttribute('aria-labelledby') || !panel.querySelector('pre, code')) continue;
    panel.removeAttribute('hidden');
    if (panel.getAttribute('aria-hidden') === 'true') panel.removeAttribute('aria-hidden');
    const style = panel.getAttribute('style');
    if (style) panel.setAttribute('style', style.replace(HIDDEN_STYLE, ';'));
  }
}
