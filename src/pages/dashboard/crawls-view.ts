// The dashboard's list of the account's latest crawls (GET /auth/crawls): each one's site, status, progress, credits
// and start, and how to read its pages.
import type { CrawlList } from '../../contract/crawl.js';
import { utcMinute } from '../components.js';
import { html, type Html } from '../html.js';

const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
const n = (value: number) => NUMBER.format(value);

function crawlRow(crawl: CrawlList[number]): Html {
  const done = crawl.fetched + crawl.failed;
  return html`<tr>
    <td>${crawl.url}<br /><code>${crawl.id}</code></td>
    <td>${crawl.status}${crawl.stop_reason ? html`<br />${crawl.stop_reason}` : ''}</td>
    <td>
      ${n(crawl.fetched)} of ${n(crawl.discovered)}${crawl.failed ? `, ${n(crawl.failed)} failed` : ''}
      <meter min="0" max="${Math.max(1, crawl.discovered)}" value="${done}" aria-label="Pages done of ${crawl.id}">
        ${n(done)} of ${n(crawl.discovered)}
      </meter>
    </td>
    <td>${n(crawl.credits)}</td>
    <td>${utcMinute(crawl.created_at)}</td>
  </tr>`;
}

export function crawlsSection(crawls: CrawlList): Html {
  return html`<section class="panel" id="crawls" aria-labelledby="crawls-h">
    <h2 id="crawls-h">Crawls</h2>
    <p>
      Start one with <code>POST /crawl</code>, <code>fetchdown crawl &lt;url&gt; --out DIR</code> or the
      <code>crawl_site</code> MCP tool; <code>GET /crawl/{id}</code> with your key reads its pages.
    </p>
    ${
      crawls.length
        ? html`<table class="crawls">
            <caption>
              Your latest crawls
            </caption>
            <thead>
              <tr>
                <th scope="col">Site</th>
                <th scope="col">Status</th>
                <th scope="col">Pages</th>
                <th scope="col">Credits</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              ${crawls.map(crawlRow)}
            </tbody>
          </table>`
        : html`<p>No crawls yet.</p>`
    }
  </section>`;
}
