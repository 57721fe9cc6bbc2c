// Small pieces several pages share.
import { html } from './html.js';

/** A code block with a copy button (hidden until site.js can make it work), scrollable by keyboard. */
export const codeBlock = (language: string, text: string, label: string) =>
  html`<div class="code">
    <button type="button" class="copy" data-copy hidden>Copy</button>
    <pre tabindex="0" aria-label="${label}"><code class="language-${language}">${text}</code></pre>
  </div>`;
