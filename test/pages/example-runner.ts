// Runs every worked example through the real app (fixture example site, search stand-in, Chromium) and returns the
// requests and answers as the pages show them: the site's 127.0.0.1 origin replaced by EXAMPLE_ORIGIN, the key
// replaced by a placeholder, and the values that change on every run (timings, dates) fixed.
import { EXAMPLES, EXAMPLE_ORIGIN } from '../../src/pages/examples/catalog.js';
import type { ExampleOutputs } from '../../src/pages/examples/outputs.js';
import { setPlan, signUp } from '../helpers/accounts.js';
import { startSearxngStandin } from '../helpers/search-standins.js';
import { buildTestApp } from '../helpers/test-app.js';
import { startExampleSite } from './example-site.js';

export const EXAMPLE_KEY = 'fd_live_YOUR_KEY';

/** Fields whose values differ from run to run, and what the pages show instead. */
const VOLATILE: Record<string, unknown> = {
  fetch_ms: 42,
  ms: 42,
  // The example PDF is made when the site starts, and PDFs carry their creation time.
  published_at: '2026-05-04T08:30:00Z',
  cached_at: '2026-11-01T09:30:00.000Z',
  expires_at: '2026-11-01T15:30:00.000Z',
  // Seconds between the example's steps, which a loaded machine stretches.
  age_seconds: 0,
  // The hash of Markdown whose links name the fixture site's port, which changes from run to run.
  content_hash: '34f0402ddc9f5e715bdc010c603f6af7',
};

function stabilise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stabilise);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k in VOLATILE && v !== null ? VOLATILE[k] : stabilise(v)]),
    );
  }
  return value;
}

/**
 * A cursor is base64url JSON [version, copy id, cached at, offset, format]: the copy id is random and the time is the
 * clock's, so each is rewritten with a fixed id and time (the offset, which is what the example shows, is kept).
 */
function stableCursors(text: string): string {
  return text.replace(/Wz[A-Za-z0-9_-]{30,}/g, (cursor) => {
    try {
      const [version, , , offset, format] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[];
      return Buffer.from(JSON.stringify([version, 'Example0Copy0Id0', 1793525400000, offset, format])).toString(
        'base64url',
      );
    } catch {
      return cursor;
    }
  });
}

/** `skip`: slugs not to run (the JavaScript example without Chromium). */
export async function runExamples(options: { chromiumPath: string; skip?: string[] }): Promise<ExampleOutputs> {
  const cleanups: (() => Promise<void>)[] = [];
  const site = await startExampleSite();
  cleanups.push(site.close);
  try {
    const search = await startSearxngStandin([
      {
        title: 'Growing Tomatoes on a Balcony',
        url: `${site.origin}/article`,
        snippet: 'Tomatoes need at least six hours of direct sun.',
      },
      {
        title: 'The Complete Balcony Growing Guide',
        url: `${site.origin}/guide`,
        snippet: 'Twelve steps from an empty balcony to a harvest.',
      },
    ]);
    cleanups.push(search.close);
    const api = await buildTestApp(
      { after: (fn: () => Promise<void>) => cleanups.push(fn) },
      {
        SEARCH_PROVIDER: 'searxng',
        SEARCH_BASE_URL: search.origin,
        CHROMIUM_PATH: options.chromiumPath,
        BROWSER_POOL_SIZE: '1',
      },
    );
    const { apiKey } = await signUp(api);
    // A paid plan, so the examples show the price list (the free tier counts any page as one fetch).
    await setPlan(api, apiKey, 'starter');
    const toSite = (text: string) => text.replaceAll(EXAMPLE_ORIGIN, site.origin);
    const fromSite = (text: string) =>
      stableCursors(
        text
          .replaceAll(site.origin, EXAMPLE_ORIGIN)
          .replaceAll(encodeURIComponent(site.origin), encodeURIComponent(EXAMPLE_ORIGIN))
          .replaceAll(new URL(site.origin).host, new URL(EXAMPLE_ORIGIN).host)
          .replaceAll(apiKey, EXAMPLE_KEY),
      );
    const outputs: ExampleOutputs = {};
    for (const example of EXAMPLES) {
      if (options.skip?.includes(example.slug)) continue;
      let previous: unknown = undefined;
      const steps: ExampleOutputs[string]['steps'] = [];
      for (const step of example.steps) {
        const body = step.body?.(previous);
        const headers = { ...step.headers, 'x-service-key': apiKey };
        const res = await api.request(
          step.method,
          step.path,
          body === undefined ? undefined : toSite(JSON.stringify(body)),
          headers,
        );
        previous = res.body;
        steps.push({
          method: step.method,
          path: step.path,
          headers: step.headers ?? {},
          body: body === undefined ? null : JSON.parse(fromSite(JSON.stringify(body))),
          status: res.status,
          response: stabilise(JSON.parse(fromSite(res.text))),
        });
      }
      outputs[example.slug] = { steps };
    }
    return outputs;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
