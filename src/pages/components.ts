// Small pieces several pages share.
import { html } from './html.js';

/** An ISO time to the minute, as the dashboard's tables show times: 2026-05-01 14:03 UTC. */
export const utcMinute = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** A code block with a copy button (hidden until site.js can make it work), scrollable by keyboard. */
export const codeBlock = (language: string, text: string, label: string) =>
  html`<div class="code">
    <button type="button" class="copy" data-copy hidden>Copy</button>
    <pre tabindex="0" aria-label="${label}"><code class="language-${language}">${text}</code></pre>
  </div>`;
