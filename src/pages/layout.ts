// The frame every page shares: head (title, description, link-preview tags, our stylesheet), navigation, footer,
// and the headers that go with it (src/http/page-headers.ts: a strict Content-Security-Policy, nothing inline).
import type { FastifyReply } from 'fastify';
import { PAGE_HEADERS } from '../http/page-headers.js';
import { html, type Html } from './html.js';
import { INTEGRATIONS } from '../discovery/integrations.js';

export interface PageMeta {
  title: string;
  description: string;
  /** The page's path, for the canonical link and og:url. */
  path: string;
  /** Account pages stay out of search engines. */
  noindex?: boolean;
}

export function layout(meta: PageMeta, publicBaseUrl: string, body: Html): Html {
  const base = publicBaseUrl.replace(/\/+$/, '');
  const title = meta.path === '/' ? meta.title : `${meta.title} · Fetchdown`;
  const current = (path: string) => (meta.path === path ? html`aria-current="page"` : '');
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        <meta name="description" content="${meta.description}" />
        ${
          meta.noindex
            ? html`<meta name="robots" content="noindex" />`
            : html`<link rel="canonical" href="${base + meta.path}" />`
        }
        <meta property="og:type" content="website" />
        <meta property="og:site_name" content="Fetchdown" />
        <meta property="og:title" content="${meta.title}" />
        <meta property="og:description" content="${meta.description}" />
        <meta property="og:url" content="${base + meta.path}" />
        <meta name="twitter:card" content="summary" />
        <link rel="icon" href="/static/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/static/site.css" />
        <script src="/static/site.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <nav aria-label="Main">
            <a class="brand" href="/" ${current('/')}>Fetchdown</a>
            <a href="/examples" ${current('/examples')}>Examples</a>
            ${INTEGRATIONS.map((i) => html`<a href="${i.path}" ${current(i.path)}>${i.name}</a>`)}
            <a href="/spec">API</a>
            <a class="cta" href="/dashboard" ${current('/dashboard')}>Dashboard</a>
          </nav>
        </header>
        <main id="main">${body}</main>
        <footer class="bottom">
          <p>
            Fetchdown: web pages as Markdown for AI agents. <a href="/spec">/spec</a> ·
            <a href="/openapi.json">/openapi.json</a> · <a href="/llms.txt">/llms.txt</a> ·
            <a href="/.well-known/mcp.json">MCP manifest</a> · <a href="/examples">Examples</a>
          </p>
        </footer>
      </body>
    </html>`;
}

export function sendPage(
  reply: FastifyReply,
  page: Html,
  status = 200,
  extraHeaders: Record<string, string> = {},
): FastifyReply {
  return reply
    .code(status)
    .headers({ ...PAGE_HEADERS, ...extraHeaders })
    .type('text/html; charset=utf-8')
    .send(page.value);
}
