// Fetches up to 20 URLs at once: results in input order, each URL metered on its own, and a failure becomes that
// URL's error entry, never the batch's.
import type { BatchFetchRequest, BatchResult } from '../contract/fetch.js';
import { located, locating, renamed, toErrorEntry, type Locate } from '../errors.js';
import type { FetchService } from '../services/fetch-service.js';
import { checkPageFields, checkSelection } from '../services/page-selection.js';
import { CACHE_HIT_MILLICREDITS, priceOf } from '../pricing.js';
import { checkDocument } from '../contract/document.js';
import { needsBrowser } from '../fetchers/router.js';
import type { Meter, Pay } from './meter.js';

type BatchItem = BatchResult['results'][number];

/** `locate`: where the caller put the batch's fields; a URL's 422 names the batch's (`urls[3]`, `max_tokens_each`). */
export async function fetchMany(
  fetchService: FetchService,
  meter: Meter,
  input: BatchFetchRequest,
  locate: Locate,
  owner: string,
): Promise<BatchResult> {
  // Broken selectors and page fields fail the batch, not each URL.
  if (input.include?.length || input.exclude?.length) await locating(locate, async () => checkSelection(input));
  const page = await locating(locate, async () => checkPageFields(input));
  const document = await locating(locate, async () => checkDocument(input));
  const fetcher = needsBrowser(page) ? 'browser' : 'auto';
  // 402 unless at least one page can be paid (from the cache, the cheapest); after that, a URL the account cannot pay
  // for gets its own 402 entry.
  await meter.requireCredit(priceOf(CACHE_HIT_MILLICREDITS));
  const style = { links: input.links, images: input.images };
  // Identical URLs share one fetch; the global limiter inside the service bounds sockets across batches.
  const byUrl = new Map<string, Promise<BatchItem>>();
  const results = input.urls.map((url, index) => {
    const first = byUrl.get(url);
    // A repeated URL is charged once, with its first item: the repeat says so, and the answers add up to the ledger.
    if (first) return first.then((item) => ('error' in item ? item : { ...item, credits: 0 }));
    const request = {
      url,
      maxTokens: input.max_tokens_each,
      maxChars: input.max_chars_each,
      format: 'markdown' as const,
      useCache: input.use_cache,
      style,
      maxAge: input.max_age,
      include: input.include,
      exclude: input.exclude,
      query: input.query,
      page,
      document,
      owner,
    };
    const at = renamed(
      { url: ['urls', index], max_tokens: ['max_tokens_each'], max_chars: ['max_chars_each'] },
      locate,
    );
    const pending = meter
      .fetch(
        'batch',
        url,
        fetcher,
        (pay?: Pay) => fetchService.fetchOne({ ...request, pay }),
        () => fetchService.answersFromCache(request),
      )
      .catch((error: unknown): BatchItem => ({ url, error: toErrorEntry(located(error, at)) }));
    byUrl.set(url, pending);
    return pending;
  });
  return { results: await Promise.all(results) };
}
