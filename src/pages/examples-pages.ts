// GET /examples and /examples/{slug}: the worked examples, each request in curl and Python with the answer our
// pipeline really gave (recorded in examples/outputs.json), and the 404 page for a slug we do not have.
import { curlOf, pythonOf } from './code-samples.js';
import { codeBlock } from './components.js';
import { EXAMPLES, type Example } from './examples/catalog.js';
import type { ExampleOutputs, RecordedStep } from './examples/outputs.js';
import { html, type Html } from './html.js';
import { layout } from './layout.js';

interface FetchAnswer {
  markdown?: unknown;
  result?: { content?: { text?: unknown }[] };
  metadata?: { token_count: number; total_tokens: number };
  fetch_info?: { fetcher_used: string };
  credits?: number;
  outline?: { level: number; title: string; tokens: number }[];
  next_cursor?: string | null;
}

/** The facts a reader looks for in a fetch answer, above the JSON: size, fetcher, price, what was cut. */
function answerFacts(answer: FetchAnswer): Html {
  if (!answer.metadata || !answer.fetch_info) return html``;
  const m = answer.metadata;
  return html`<p class="facts-line">
      ${m.token_count} tokens${m.total_tokens > m.token_count ? ` of ${m.total_tokens}` : ''} · fetcher
      <code>${answer.fetch_info.fetcher_used}</code> · ${answer.credits} credit${answer.credits === 1 ? '' : 's'}
    </p>
    ${
      answer.outline?.length
        ? html`<h3>Cut from this answer (<code>outline</code>)</h3>
            <ul>
              ${answer.outline.map((o) => html`<li>${'#'.repeat(o.level)} ${o.title}: ${o.tokens} tokens</li>`)}
            </ul>`
        : ''
    }
    ${
      answer.next_cursor
        ? html`<p><code>next_cursor</code> is set: send it back as <code>cursor</code> to read on.</p>`
        : ''
    }`;
}

function stepView(step: RecordedStep, index: number, total: number, base: string): Html {
  const response = step.response as FetchAnswer;
  const markdown = typeof response.markdown === 'string' ? response.markdown : response.result?.content?.[0]?.text;
  return html`<section class="step" aria-label="Request ${index + 1}">
    ${total > 1 ? html`<h2>Request ${index + 1} of ${total}</h2>` : html`<h2>The request</h2>`}
    <h3>curl</h3>
    ${codeBlock('sh', curlOf(step, base), 'curl command')}
    <h3>Python</h3>
    ${codeBlock('python', pythonOf(step, base), 'Python code')}
    <h2>The answer <span class="status">HTTP ${step.status}</span></h2>
    ${
      typeof markdown === 'string'
        ? html`<h3>The Markdown, as the agent reads it</h3>
            ${codeBlock('markdown', markdown, 'Markdown returned')}`
        : ''
    }
    ${answerFacts(response)}
    <details ${typeof markdown === 'string' ? '' : html`open`}>
      <summary>The whole JSON answer</summary>
      ${codeBlock('json', JSON.stringify(step.response, null, 2), 'JSON answer')}
    </details>
  </section>`;
}

export function examplesIndex(base: string): Html {
  return layout(
    {
      title: 'Examples',
      description:
        'Worked Fetchdown examples with real answers: articles, long pages in parts, PDFs, ' +
        'JavaScript pages, batches, search and MCP.',
      path: '/examples',
    },
    base,
    html`<h1>Worked examples</h1>
      <p class="lead">
        Each example is a real request and the answer Fetchdown gave, recorded from our own pipeline on the pages of a
        small example site that ships with the code (a test checks that they still match).
      </p>
      <ul class="cards">
        ${EXAMPLES.map(
          (e) =>
            html`<li>
              <a href="/examples/${e.slug}"><strong>${e.title}</strong></a>
              <p>${e.summary}</p>
            </li>`,
        )}
      </ul>`,
  );
}

export function examplePage(example: Example, outputs: ExampleOutputs, base: string): Html {
  const steps = outputs[example.slug]?.steps ?? [];
  const position = EXAMPLES.indexOf(example);
  const next = EXAMPLES[position + 1];
  return layout(
    { title: example.title, description: example.summary, path: `/examples/${example.slug}` },
    base,
    html`<p class="crumbs"><a href="/examples">Examples</a> /</p>
      <h1>${example.title}</h1>
      <p class="lead">${example.summary}</p>
      ${example.explanation}
      ${
        steps.length === 0
          ? html`<p>This example has not been recorded on this server (run <code>npm run examples</code>).</p>`
          : ''
      }
      ${steps.map((step, i) => stepView(step, i, steps.length, base))}
      <p class="next">
        ${
          next
            ? html`Next: <a href="/examples/${next.slug}">${next.title}</a>`
            : html`<a href="/examples">All examples</a>`
        }
      </p>`,
  );
}

export function notFoundPage(base: string, path: string): Html {
  return layout(
    { title: 'Page not found', description: 'There is no page at this address.', path, noindex: true },
    base,
    html`<h1>Page not found</h1>
      <p>There is no page at <code>${path}</code>.</p>
      <p>Try the <a href="/examples">examples</a> or the <a href="/">home page</a>.</p>`,
  );
}
