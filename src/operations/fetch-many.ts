// Fetches up to 20 URLs at once: results in input order, each URL metered on its own, and a failure becomes that
// URL's error entry, never the batch's.
import type { BatchFetchRequest, BatchResult } from '../contract/fetch.js';
import { toErrorEntry } from '../errors.js';
import { checkSelection, type FetchService } from '../services/fetch-service.js';
import { fetchReserveMillis, type Meter, type Pay } from './meter.js';

type BatchItem = BatchResult['results'][number];

export async function fetchMany(
  fetchService: FetchService,
  meter: Meter,
  input: BatchFetchRequest,
): Promise<BatchResult> {
  // Broken selectors fail the batch, not each URL.
  if (input.include?.length || input.exclude?.length) checkSelection(input);
  // 402 unless at least one page can be paid; after that, a URL the account cannot pay for gets its own 402 entry.
  await meter.requireCredit(fetchReserveMillis('auto'));
  const style = { links: input.links, images: input.images };
  const maxTokens = ['body', 'max_tokens_each'];
  // Identical URLs share one fetch; the global limiter inside the service bounds sockets across batches.
  const byUrl = new Map<string, Promise<BatchItem>>();
  const results = input.urls.map((url, index) => {
    let pending = byUrl.get(url);
    if (!pending) {
      const fetchOne = (pay?: Pay) =>
        fetchService.fetchOne(
          {
            url,
            maxTokens: input.max_tokens_each,
            format: 'markdown',
            useCache: input.use_cache,
            style,
            maxAge: input.max_age,
            include: input.include,
            exclude: input.exclude,
            query: input.query,
            pay,
          },
          { url: ['body', 'urls', index], maxTokens },
        );
      pending = meter
        .fetch('batch', url, 'auto', fetchOne)
        .catch((error: unknown): BatchItem => ({ url, error: toErrorEntry(error) }));
      byUrl.set(url, pending);
    }
    return pending;
  });
  return { results: await Promise.all(results) };
}
