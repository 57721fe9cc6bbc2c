// `npm run bench:query`: how many of a page's must-have snippets (WCXB `with`) a 500-token answer holds, with `query`
// against a plain head cut, on the WCXB dev pages served from 127.0.0.1 and fetched through the real app over HTTP.
// The honest query is the page's title (what an agent knows before reading). Queries made from the snippets: joined
// and cut at 500 characters (the later snippets fall outside it), every snippet's words in turn up to 500 characters
// (one query that names each snippet), and one query per snippet (an agent asking for one thing), which counts only
// that snippet.
import { loadavg } from 'node:os';
import { loadWcxbPages, startWcxbBench, type WcxbPage } from './wcxb-site.js';

const BUDGET = 500;
// WCXB scores the text rendering (score.mjs): in Markdown, emphasis and escapes split some snippets apart.
const FORMAT = process.env.BENCH_FORMAT ?? 'markdown';
const pages = loadWcxbPages().filter((page) => page.with.length > 0);
const bench = await startWcxbBench(pages);

/** Every snippet's words in turn (first words of each, then second words…), each word once, up to 500 characters. */
const snippetWords = (snippets: string[]) => {
  const lists = snippets.map((snippet) => snippet.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const words = new Set<string>();
  let length = 0;
  for (let i = 0; lists.some((list) => i < list.length); i++) {
    for (const list of lists) {
      const word = list[i];
      if (word === undefined || words.has(word)) continue;
      if (length + word.length + 1 > 500) return [...words].join(' ');
      words.add(word);
      length += word.length + 1;
    }
  }
  return [...words].join(' ');
};

const found = (markdown: string, page: WcxbPage) => {
  const lower = markdown.toLowerCase();
  return page.with.filter((snippet) => lower.includes(snippet.toLowerCase())).length;
};

interface Row {
  snippets: number;
  /** Snippets the whole page holds: the most any read of it can find. */
  inPage: number;
  total: number;
  head: number;
  title: number;
  snippetQuery: number;
  /** Snippets found by a query of their own: one read per snippet. */
  eachSnippet: number;
  words: number;
  ms: { head: number; title: number };
}
const rows: Row[] = [];
try {
  for (const page of pages) {
    const url = bench.pageUrl(page);
    // The whole page once (cached); every read below is of that copy, as the same format.
    const whole = await bench.post('/fetch', { url, format: FORMAT, links: 'none', images: 'none' });
    if (whole.status !== 200) continue;
    const read = async (query?: string) => {
      const started = performance.now();
      const res = await bench.post('/fetch', {
        url,
        format: FORMAT,
        links: 'none',
        images: 'none',
        max_tokens: BUDGET,
        ...(query && { query }),
      });
      if (res.metadata.token_count > BUDGET) throw new Error(`${page.id}: ${res.metadata.token_count} tokens`);
      return { markdown: res.markdown as string, ms: performance.now() - started };
    };
    const title = page.title.trim().slice(0, 500);
    // Interleaved page by page: head cut, title query, snippet query.
    const head = await read();
    const byTitle = title.length >= 2 ? await read(title) : head;
    const bySnippets = await read(page.with.join(' ').slice(0, 500));
    const byWords = await read(snippetWords(page.with));
    let eachSnippet = 0;
    for (const snippet of page.with) {
      const answer = snippet.trim().length >= 2 ? await read(snippet.trim().slice(0, 500)) : head;
      if (answer.markdown.toLowerCase().includes(snippet.toLowerCase())) eachSnippet += 1;
    }
    rows.push({
      snippets: page.with.length,
      inPage: found(whole.markdown as string, page),
      total: whole.metadata.total_tokens,
      head: found(head.markdown, page),
      title: found(byTitle.markdown, page),
      snippetQuery: found(bySnippets.markdown, page),
      eachSnippet,
      words: found(byWords.markdown, page),
      ms: { head: head.ms, title: byTitle.ms },
    });
  }
} finally {
  await bench.close();
}

const sum = (list: Row[], pick: (row: Row) => number) => list.reduce((total, row) => total + pick(row), 0);
const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)} %`;
const report = (name: string, list: Row[]) => {
  const all = sum(list, (r) => r.snippets);
  const head = sum(list, (r) => r.head);
  const title = sum(list, (r) => r.title);
  const snippets = sum(list, (r) => r.snippetQuery);
  const each = sum(list, (r) => r.eachSnippet);
  const inPage = sum(list, (r) => r.inPage);
  const against = (n: number) => `${pct(n, all)} (${(n / head).toFixed(2)}×)`;
  console.log(
    `| ${name} | ${list.length} | ${all} | ${pct(inPage, all)} | ${pct(head, all)} | ` +
      `${against(title)} | ${against(snippets)} | ${against(sum(list, (r) => r.words))} | ${against(each)} |`,
  );
};
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}; budget ${BUDGET} tokens\n`,
);
console.log(
  '| pages | n | must-have snippets | in the whole page | head cut | query = title | query = the snippets | ' +
    "query = the snippets' words | query = one snippet |",
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
report('all', rows);
report(
  `longer than ${BUDGET} tokens`,
  rows.filter((row) => row.total > BUDGET),
);
report(
  `longer than ${4 * BUDGET} tokens`,
  rows.filter((row) => row.total > 4 * BUDGET),
);
const mean = (pick: (row: Row) => number) => (sum(rows, pick) / rows.length).toFixed(1);
console.log(
  `\nms per cached read (HTTP round trip): head cut ${mean((r) => r.ms.head)}, title query ${mean((r) => r.ms.title)}`,
);
