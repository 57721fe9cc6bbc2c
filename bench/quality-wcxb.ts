// The WCXB half of `npm run bench:quality`: the dev split's pages (all 1,497, or a seeded sample) served from
// 127.0.0.1 and fetched through the real app (POST /fetch, format text), scored with WCXB's metric overall and per page
// type beside Readability.js on linkedom in the same run; extraction speed against Readability's, interleaved page by
// page on a seeded sample; empty_content answers counted. Returns the failures against the issue-15 targets.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { startBenchApp } from './bench-app.js';
import type { AddressInfo } from 'node:net';
import {
  PAGE_TYPES,
  RS_TRAFILATURA,
  loadWcxbPage,
  loadWcxbTruth,
  scoreWcxb,
  wcxbIds,
  type WcxbScore,
  type WcxbSummary,
} from './wcxb-pages.js';

const OUT_DIR = new URL('../.bench-tmp/', import.meta.url);
export const WCXB_TARGETS = { f1: 0.9, with: 0.9, without: 0.05, speedRatio: 0.8 };
const SPEED_SAMPLE = { size: Number(process.env['WCXB_SPEED_PAGES'] ?? 300), seed: 15 };

interface Answer {
  status: number;
  code: string | null;
  text: string;
}

/** Every page through POST /fetch of a real app, the page served as stored by a local site. */
async function fetchAll(ids: string[], truth: ReturnType<typeof loadWcxbTruth>): Promise<Record<string, Answer>> {
  const site = createServer((req, res) => {
    const id = /^\/(\w+)\.html$/.exec(req.url ?? '')?.[1];
    if (!id || !truth[id]) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loadWcxbPage(id, truth).raw);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const { client, close } = await startBenchApp();
  const answers: Record<string, Answer> = {};
  try {
    for (const id of ids) {
      const res = await client.request({
        method: 'POST',
        path: '/fetch',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${origin}/${id}.html`, format: 'text', use_cache: false }),
      });
      const body = (await res.body.json()) as { markdown?: string; code?: string };
      answers[id] = { status: res.statusCode, code: body.code ?? null, text: body.markdown ?? '' };
    }
    return answers;
  } finally {
    await close();
    site.close();
  }
}

/** extractHtml and Readability on the same pages, alternating page by page: the like-for-like pages/s ratio. */
async function measureSpeed(truth: ReturnType<typeof loadWcxbTruth>): Promise<{ ours: number; readability: number }> {
  const { extractHtml } = await import('../src/extract/index.js');
  const { extractWithReadability } = await import('./readability-baseline.js');
  const pages = wcxbIds(truth, SPEED_SAMPLE).map((id) => loadWcxbPage(id, truth));
  for (const page of pages.slice(0, 10)) {
    extractHtml(page.html, page.url);
    extractWithReadability(page.html);
  }
  let ours = 0;
  let readability = 0;
  for (const page of pages) {
    let cpu = process.cpuUsage();
    extractHtml(page.html, page.url);
    let used = process.cpuUsage(cpu);
    ours += used.user + used.system;
    cpu = process.cpuUsage();
    extractWithReadability(page.html);
    used = process.cpuUsage(cpu);
    readability += used.user + used.system;
  }
  return { ours: pages.length / (ours / 1e6), readability: pages.length / (readability / 1e6) };
}

const f3 = (x: number) => x.toFixed(3);
/** Some labelled pages have no URL. */
const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).host : '-');
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

function row(name: string, ours: WcxbSummary, base: WcxbSummary | undefined, reference: number): string {
  return (
    `| ${name} | ${ours.n} | ${f3(ours.f1)} | ${f3(ours.precision)} | ${f3(ours.recall)} | ${pct(ours.with)} | ` +
    `${pct(ours.without)} | ${base ? f3(base.f1) : '–'} | ${f3(reference)} |`
  );
}

/** Runs the WCXB half and prints its tables; returns what misses the targets. */
export async function runWcxbQuality(sample?: { size: number; seed: number }): Promise<string[]> {
  const truth = loadWcxbTruth();
  const ids = wcxbIds(truth, sample);
  const { extractWithReadability } = await import('./readability-baseline.js');
  const baseText: Record<string, string> = {};
  for (const id of ids) baseText[id] = extractWithReadability(loadWcxbPage(id, truth).html);
  const answers = await fetchAll(ids, truth);
  const ours: WcxbScore = await scoreWcxb(ids, truth, Object.fromEntries(ids.map((id) => [id, answers[id]!.text])));
  const base = await scoreWcxb(ids, truth, baseText);
  const speed = await measureSpeed(truth);
  const ratio = speed.ours / speed.readability;

  console.log(
    `\nWCXB dev: ${ids.length} pages${sample ? ` (seeded sample, seed ${sample.seed})` : ''}, ` +
      `POST /fetch format text; load average ${(await import('node:os'))
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}\n`,
  );
  console.log('| page type | pages | F1 | P | R | with | without | Readability F1 | rs-trafilatura F1 |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  console.log(row('overall', ours.overall, base.overall, RS_TRAFILATURA.overall));
  for (const type of PAGE_TYPES) {
    const s = ours.byType[type];
    if (s) console.log(row(type, s, base.byType[type], RS_TRAFILATURA[type]));
  }
  const notOk = ids.filter((id) => answers[id]!.status !== 200);
  const byCode = new Map<string, string[]>();
  for (const id of notOk) {
    const key = `${answers[id]!.status} ${answers[id]!.code ?? ''}`;
    byCode.set(key, [...(byCode.get(key) ?? []), id]);
  }
  console.log(
    `\nNot answered 200: ${notOk.length}${[...byCode].map(([k, v]) => `; ${k}: ${v.slice(0, 10).join(' ')}`).join('')}`,
  );
  console.log(
    `Extraction speed, interleaved on ${SPEED_SAMPLE.size} seeded pages: extractHtml ${speed.ours.toFixed(1)} pages per ` +
      `CPU-s, Readability ${speed.readability.toFixed(1)} (ratio ${ratio.toFixed(2)}×)`,
  );

  const baseById = new Map(base.perPage.map((p) => [p.id, p]));
  const worst = [...ours.perPage].sort((a, b) => a.f1 - b.f1).slice(0, 15);
  console.log('\nWorst 15 pages by F1:\n');
  console.log('| id | type | host | P | R | F1 | Readability F1 |');
  console.log('|---|---|---|---|---|---|---|');
  for (const p of worst)
    console.log(
      `| ${p.id} | ${p.page_type} | ${hostOf(truth[p.id]!.url)} | ${f3(p.precision)} | ${f3(p.recall)} | ` +
        `${f3(p.f1)} | ${f3(baseById.get(p.id)!.f1)} |`,
    );
  mkdirSync(new URL('wcxb-worst/', OUT_DIR), { recursive: true });
  for (const p of worst) {
    writeFileSync(new URL(`wcxb-worst/${p.id}.ours.txt`, OUT_DIR), `${answers[p.id]!.text}\n`);
    writeFileSync(new URL(`wcxb-worst/${p.id}.truth.txt`, OUT_DIR), `${truth[p.id]!.articleBody}\n`);
  }
  writeFileSync(
    new URL('wcxb-per-page.tsv', OUT_DIR),
    ['id\tpage_type\tf1\tprecision\trecall\twith\twithout\tstatus\treadability_f1']
      .concat(
        ours.perPage.map((p) =>
          [
            p.id,
            p.page_type,
            f3(p.f1),
            f3(p.precision),
            f3(p.recall),
            f3(p.with),
            f3(p.without),
            answers[p.id]!.status,
            f3(baseById.get(p.id)!.f1),
          ].join('\t'),
        ),
      )
      .join('\n') + '\n',
  );
  console.log('\nPer page: .bench-tmp/wcxb-per-page.tsv; the worst 15 beside the truth: .bench-tmp/wcxb-worst/');

  const missed: string[] = [];
  if (ours.overall.f1 < WCXB_TARGETS.f1) missed.push(`WCXB F1 ${f3(ours.overall.f1)} < ${WCXB_TARGETS.f1}`);
  for (const type of PAGE_TYPES) {
    const s = ours.byType[type];
    if (s && s.f1 < RS_TRAFILATURA[type]) missed.push(`WCXB ${type} F1 ${f3(s.f1)} < ${RS_TRAFILATURA[type]}`);
  }
  if (ours.overall.with < WCXB_TARGETS.with) missed.push(`WCXB with ${pct(ours.overall.with)} < 90 %`);
  if (ours.overall.without > WCXB_TARGETS.without) missed.push(`WCXB without ${pct(ours.overall.without)} > 5 %`);
  if (ratio < WCXB_TARGETS.speedRatio) missed.push(`speed ${ratio.toFixed(2)}× Readability < 0.8×`);
  const emptyWithText = (byCode.get('422 empty_content') ?? []).length;
  if (notOk.length > 0) missed.push(`${notOk.length} WCXB pages not answered 200 (${emptyWithText} empty_content)`);
  return missed;
}
