// The dashboard with a session: the account and its allowance, usage (chart and tables), keys (create, revoke), the
// connected applications, the latest crawls, buying credits or a plan, the playground, and signing out. Every action
// is a plain form posting to /dashboard/*.
import type { CrawlList } from '../../contract/crawl.js';
import type { ConnectedApp } from '../../operations/oauth.js';
import { CREDIT_PACKS, PLANS } from '../../pricing.js';
import { codeBlock } from '../components.js';
import { html, type Html } from '../html.js';
import { layout } from '../layout.js';
import { usageChart } from '../usage-chart.js';
import { appsSection } from './apps-view.js';
import { crawlsSection } from './crawls-view.js';

interface Tally {
  [name: string]: { credits: number; requests: number };
}

export interface DashboardData {
  account: { email: string; plan: string; balance_credits: number };
  usage: {
    allowance: { monthly_credits: number; used_credits: number; remaining_credits: number; renews_at: string };
    credits_used: number;
    requests: number;
    by_operation: Tally;
    by_fetcher: Tally;
    daily: { date: string; credits: number }[];
    period: { month: string };
  };
  keys: { id: number; label: string | null; created_at: string; last_used_at: string | null; revoked: boolean }[];
  crawls: CrawlList;
  apps: ConnectedApp[];
  /** This server takes payments (Stripe is configured): without it, nothing is offered for sale. */
  billing: boolean;
}

export interface PlaygroundResult {
  url: string;
  ok?: { title: string | null; markdown: string; token_count: number; fetcher: string; credits: number };
  error?: string;
}

export interface DashboardExtras {
  notice?: { text: string; error?: boolean };
  newKey?: { apiKey: string; label: string | null };
  playground?: PlaygroundResult;
  /** Prefilled in the playground: the key just created, or the one last used there. */
  playgroundKey?: string;
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : 'never');
// One formatter, made once: toLocaleString builds a new one per call, which made rendering 10× slower.
const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
const n = (value: number) => NUMBER.format(value);
const dollars = (cents: number) => `$${NUMBER.format(cents / 100)}`;

function tallyTable(caption: string, head: string, tally: Tally): Html {
  const rows = Object.entries(tally).sort((a, b) => b[1].credits - a[1].credits);
  return html`<table>
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">${head}</th>
        <th scope="col">Requests</th>
        <th scope="col">Credits</th>
      </tr>
    </thead>
    <tbody>
      ${
        rows.length
          ? rows.map(
              ([name, t]) =>
                html`<tr>
                  <td>${name}</td>
                  <td>${n(t.requests)}</td>
                  <td>${n(t.credits)}</td>
                </tr>`,
            )
          : html`<tr>
              <td colspan="3">Nothing yet this month</td>
            </tr>`
      }
    </tbody>
  </table>`;
}

function accountSection({ account, usage }: DashboardData): Html {
  const a = usage.allowance;
  return html`<section class="panel" aria-labelledby="account-h">
    <h2 id="account-h">Account</h2>
    <dl class="facts">
      <div>
        <dt>E-mail</dt>
        <dd>${account.email}</dd>
      </div>
      <div>
        <dt>Plan</dt>
        <dd id="plan">${account.plan}</dd>
      </div>
      <div>
        <dt>Allowance this month</dt>
        <dd>
          ${n(a.used_credits)} used, <strong>${n(a.remaining_credits)}</strong> left of ${n(a.monthly_credits)}
          <meter min="0" max="${a.monthly_credits}" value="${a.used_credits}" aria-label="Allowance used">
            ${n(a.used_credits)} of ${n(a.monthly_credits)}
          </meter>
        </dd>
      </div>
      <div>
        <dt>Renews</dt>
        <dd>${day(a.renews_at)}</dd>
      </div>
      <div>
        <dt>Prepaid balance</dt>
        <dd id="balance">${n(account.balance_credits)} credits</dd>
      </div>
    </dl>
  </section>`;
}

function usageSection({ usage }: DashboardData): Html {
  return html`<section class="panel" aria-labelledby="usage-h">
    <h2 id="usage-h">Usage in ${usage.period.month}</h2>
    <p>${n(usage.credits_used)} credits over ${n(usage.requests)} requests.</p>
    ${usageChart(usage.daily)}
    <div class="grid2">
      ${tallyTable('By operation', 'Operation', usage.by_operation)}${tallyTable(
        'By fetcher',
        'Fetcher',
        usage.by_fetcher,
      )}
    </div>
  </section>`;
}

function keysSection({ keys }: DashboardData, extras: DashboardExtras): Html {
  const created = extras.newKey;
  return html`<section class="panel" id="keys" aria-labelledby="keys-h">
    <h2 id="keys-h">API keys</h2>
    ${
      created
        ? html`<div class="new-key" role="status">
            <p>
              <strong>Your new key${created.label ? html` “${created.label}”` : ''}.</strong> Copy it now: it is shown
              this once and stored only as a hash.
            </p>
            ${codeBlock('text', created.apiKey, 'New API key')}
          </div>`
        : ''
    }
    <form method="post" action="/dashboard/keys" class="inline">
      <label for="label">Label</label><input id="label" name="label" maxlength="64" placeholder="e.g. laptop" />
      <button type="submit">Create a key</button>
    </form>
    <table class="keys">
      <caption>
        Your keys
      </caption>
      <thead>
        <tr>
          <th scope="col">Label</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        ${keys.map(
          (k) =>
            html`<tr>
              <td>${k.label ?? '—'}</td>
              <td>${day(k.created_at)}</td>
              <td>${day(k.last_used_at)}</td>
              <td>
                ${
                  k.revoked
                    ? 'revoked'
                    : html`active
                        <details class="confirm">
                          <summary>Revoke</summary>
                          <form method="post" action="/dashboard/keys/${k.id}/revoke">
                            <p>Revoke “${k.label ?? k.id}”? Programs using it stop working at once.</p>
                            <button type="submit" class="danger">Yes, revoke this key</button>
                          </form>
                        </details>`
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function billingSection({ account, billing }: DashboardData): Html {
  if (!billing)
    return html`<section class="panel" id="billing" aria-labelledby="billing-h">
      <h2 id="billing-h">Credits and plans</h2>
      <p>
        Billing is off on this server: credits and plans are not sold here. Your plan is ${account.plan}. (Operators:
        set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET to sell packs and plans.)
      </p>
    </section>`;
  const buy = (mode: string, key: string, text: string) =>
    html`<form method="post" action="/dashboard/checkout">
      <input type="hidden" name="mode" value="${mode}" /><input type="hidden" name="item_key" value="${key}" /><button
        type="submit"
      >
        ${text}
      </button>
    </form>`;
  return html`<section class="panel" id="billing" aria-labelledby="billing-h">
    <h2 id="billing-h">Credits and plans</h2>
    <h3>Credit packs (never expire)</h3>
    <div class="buttons">
      ${CREDIT_PACKS.map((p) => buy('pack', p.key, `${n(p.credits)} credits for ${dollars(p.priceCents)}`))}
    </div>
    <h3>Monthly plans</h3>
    <div class="buttons">
      ${PLANS.filter((p) => p.priceCentsPerMonth > 0).map((p) =>
        buy(
          'subscription',
          p.key,
          `${p.key}: ${n(p.monthlyCredits)} credits a month for ${dollars(p.priceCentsPerMonth)}${p.key === account.plan ? ' (current)' : ''}`,
        ),
      )}
    </div>
    <form method="post" action="/dashboard/portal">
      <button type="submit" class="ghost">Manage billing and invoices</button>
    </form>
  </section>`;
}

function playgroundSection(extras: DashboardExtras): Html {
  const p = extras.playground;
  return html`<section class="panel" id="playground" aria-labelledby="playground-h">
    <h2 id="playground-h">Playground</h2>
    <p>Fetch a page with one of your keys, billed like any request.</p>
    <form method="post" action="/dashboard/playground" class="stack">
      <label for="pg-url">URL</label
      ><input
        id="pg-url"
        name="url"
        type="url"
        required
        maxlength="2048"
        value="${p?.url ?? ''}"
        placeholder="https://example.com/"
      />
      <label for="pg-key">API key</label
      ><input
        id="pg-key"
        name="api_key"
        required
        autocomplete="off"
        spellcheck="false"
        value="${extras.playgroundKey ?? ''}"
        placeholder="fd_live_…"
      />
      <button type="submit">Fetch</button>
    </form>
    ${p?.error ? html`<p class="notice error" role="alert">${p.error}</p>` : ''}
    ${
      p?.ok
        ? html`<div class="result" role="status">
            <p>
              <strong>${p.ok.title ?? 'Untitled'}</strong>: <span id="pg-tokens">${n(p.ok.token_count)}</span> tokens,
              fetcher <code id="pg-fetcher">${p.ok.fetcher}</code>,
              <span id="pg-credits">${n(p.ok.credits)}</span> credits.
            </p>
            ${codeBlock('markdown', p.ok.markdown, 'Markdown returned')}
          </div>`
        : ''
    }
  </section>`;
}

export function dashboardPage(base: string, data: DashboardData, extras: DashboardExtras = {}): Html {
  return layout(
    {
      title: 'Dashboard',
      description: 'Your Fetchdown account: API keys, connected applications, usage, crawls, credits and billing.',
      path: '/dashboard',
      noindex: true,
    },
    base,
    html`<div class="dash-head">
        <h1>Dashboard</h1>
        <p>Signed in as <strong>${data.account.email}</strong></p>
        <form method="post" action="/dashboard/sign-out"><button type="submit" class="ghost">Sign out</button></form>
      </div>
      ${
        extras.notice
          ? html`<p class="notice${extras.notice.error ? ' error' : ''}" role="status">${extras.notice.text}</p>`
          : ''
      }
      ${accountSection(data)} ${keysSection(data, extras)} ${playgroundSection(extras)} ${appsSection(base, data.apps)}
      ${crawlsSection(data.crawls)} ${usageSection(data)} ${billingSection(data)}`,
  );
}
