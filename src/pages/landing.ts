// GET /: what Fetchdown is, one real example, why it is different, the prices (from src/pricing.ts), MCP set-up.
import type { Config } from '../config.js';
import { describePricing } from '../pricing.js';
import { codeBlock } from './components.js';
import { curlOf } from './code-samples.js';
import type { ExampleOutputs } from './examples/outputs.js';
import { html, type Html } from './html.js';
import { INTEGRATIONS } from '../discovery/integrations.js';
import { layout } from './layout.js';

const usd = (amount: number) =>
  `$${amount.toLocaleString('en-US', { minimumFractionDigits: amount % 1 ? 2 : 0, maximumFractionDigits: 4 })}`;
const number = (n: number) => n.toLocaleString('en-US');

function pricing(config: Config): Html {
  const p = describePricing({
    free: config.FREE_MONTHLY_CREDITS,
    starter: config.STARTER_MONTHLY_CREDITS,
    pro: config.PRO_MONTHLY_CREDITS,
    scale: config.SCALE_MONTHLY_CREDITS,
  });
  const r = p.route_credits;
  return html`<section id="pricing" aria-labelledby="pricing-h">
    <h2 id="pricing-h">Pricing</h2>
    <p>
      One credit is ${usd(p.credit_usd)}. A page costs what its fetcher costs: html ${r.html}, reader ${r.reader}, PDF
      ${r.pdf}, JavaScript rendering ${r.browser} credits; a cache hit ${p.flat_rates_credits.cache_hit}, a token
      estimate ${p.flat_rates_credits.estimate_tokens}, a search with 3 fetched results ${r.search_with_3_fetches}.
      Errors cost nothing.
    </p>
    <div class="grid2">
      <table>
        <caption>
          Monthly plans
        </caption>
        <thead>
          <tr>
            <th scope="col">Plan</th>
            <th scope="col">Credits a month</th>
            <th scope="col">Price</th>
          </tr>
        </thead>
        <tbody>
          ${p.plans.map(
            (plan) =>
              html`<tr>
                <td>${plan.item_key}</td>
                <td>${number(plan.monthly_credits)}</td>
                <td>${plan.price_usd_per_month ? `${usd(plan.price_usd_per_month)}/month` : 'free'}</td>
              </tr>`,
          )}
        </tbody>
      </table>
      <table>
        <caption>
          Credit packs (never expire)
        </caption>
        <thead>
          <tr>
            <th scope="col">Pack</th>
            <th scope="col">Credits</th>
            <th scope="col">Price</th>
          </tr>
        </thead>
        <tbody>
          ${p.packs.map(
            (pack) =>
              html`<tr>
                <td>${pack.item_key}</td>
                <td>${number(pack.credits)}</td>
                <td>${usd(pack.price_usd)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}

export function landingPage(config: Config, outputs: ExampleOutputs): Html {
  const base = config.PUBLIC_BASE_URL;
  const step = outputs['article-to-markdown']?.steps[0];
  const answer = step?.response as
    { markdown?: string; metadata?: { token_count?: number }; fetch_info?: { fetcher_used?: string } } | undefined;
  return layout(
    {
      title: 'Fetchdown: web pages as clean Markdown for AI agents',
      description:
        'A URL in; clean Markdown with its title and an exact token count out. Token budgets with ' +
        'an outline and a cursor, PDFs, JavaScript pages, MCP tools, self-hostable.',
      path: '/',
    },
    base,
    html`<section class="hero">
        <h1>Any web page as clean Markdown for your agent</h1>
        <p class="lead">
          Fetchdown takes a URL and returns the page's main content as Markdown, with its title and an exact token
          count, trimmed to the budget you give it.
        </p>
        <p>
          <a class="button" href="/dashboard#sign-in">Get a free API key</a>
          <a class="button ghost" href="/examples">See the examples</a>
        </p>
      </section>
      ${
        step && answer
          ? html`<section aria-labelledby="example-h">
              <h2 id="example-h">One request, one real answer</h2>
              ${codeBlock('sh', curlOf(step, base), 'curl command')}
              <p>
                returns (${answer.metadata?.token_count} tokens, fetcher
                <code>${answer.fetch_info?.fetcher_used}</code>, 1 credit):
              </p>
              ${codeBlock('markdown', answer.markdown ?? '', 'Markdown returned')}
              <p>
                <a href="/examples/article-to-markdown">The whole answer</a> · <a href="/examples">more examples</a>
              </p>
            </section>`
          : ''
      }
      <section aria-labelledby="why-h">
        <h2 id="why-h">Why Fetchdown</h2>
        <ul class="cards">
          <li>
            <strong>Exact token counts</strong>
            <p>Every answer carries the o200k count of the text you get, not a guess from bytes.</p>
          </li>
          <li>
            <strong>Budgets that read on</strong>
            <p>
              <code>max_tokens</code> trims at a block boundary, lists the cut sections in an outline, and gives a
              cursor to read the next part.
            </p>
          </li>
          <li>
            <strong>Never billed for an error page</strong>
            <p>404s, bot challenges and failures are errors, not content, and cost nothing.</p>
          </li>
          <li>
            <strong>An SSRF guard at the socket</strong>
            <p>Every connection, redirect and browser request is checked against private and reserved ranges.</p>
          </li>
          <li>
            <strong>The right fetcher per page</strong>
            <p>Plain HTML, PDFs and JavaScript apps are routed automatically; the answer says which fetcher ran.</p>
          </li>
          <li>
            <strong>Self-hostable</strong>
            <p>One Node process with SQLite, or Postgres and Redis; no external fonts, scripts or services needed.</p>
          </li>
        </ul>
      </section>
      ${pricing(config)}
      <section aria-labelledby="mcp-h">
        <h2 id="mcp-h">Use it from your agent (MCP)</h2>
        <p>Claude Code, in one line:</p>
        ${codeBlock(
          'sh',
          `claude mcp add --transport http fetchdown ${base}/mcp --header "X-Service-Key: fd_live_YOUR_KEY"`,
          'Claude Code command',
        )}
        <p>Cursor (<code>.cursor/mcp.json</code>) and other clients that take a remote server by URL:</p>
        ${codeBlock(
          'json',
          JSON.stringify(
            { mcpServers: { fetchdown: { url: `${base}/mcp`, headers: { 'X-Service-Key': 'fd_live_YOUR_KEY' } } } },
            null,
            2,
          ),
          'MCP client configuration',
        )}
        <p>
          Set-up for each client:
          ${INTEGRATIONS.map((i, n) => html`${n ? ' · ' : ''}<a href="${i.path}">${i.title}</a>`)}.
        </p>
      </section>
      <section aria-labelledby="docs-h">
        <h2 id="docs-h">For machines</h2>
        <ul>
          <li><a href="/spec">/spec</a>: the service, its MCP tools, authentication and prices as JSON</li>
          <li><a href="/openapi.json">/openapi.json</a>: every endpoint with its schemas</li>
          <li><a href="/llms.txt">/llms.txt</a>: an overview for language models</li>
          <li><a href="/.well-known/mcp.json">/.well-known/mcp.json</a>: the MCP manifest</li>
        </ul>
      </section>`,
  );
}
