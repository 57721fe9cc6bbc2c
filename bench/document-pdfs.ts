// Prints HTML documents to PDF with Debian's Chromium through playwright-core, A4 with a running head and a page
// number on every page (as word processors and browsers print them), cached by the hash of what was printed under
// .bench-tmp/documents/ (git-ignored), so a rerun reads the PDFs instead of printing them again.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { createRetriedBrowser } from './retried-browser.js';

const CACHE_DIR = fileURLToPath(new URL('../.bench-tmp/documents/', import.meta.url));

const HEADER =
  '<div style="font: 8px sans-serif; width: 100%; margin: 0 1.6cm; color: #555">Fetchdown document benchmark</div>';
const FOOTER =
  '<div style="font: 8px sans-serif; width: 100%; text-align: center; color: #555">' +
  'Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';
const PRINT = {
  format: 'A4',
  displayHeaderFooter: true,
  headerTemplate: HEADER,
  footerTemplate: FOOTER,
  margin: { top: '2cm', bottom: '2cm', left: '1.8cm', right: '1.8cm' },
} as const;

/** Printing a document takes a second or two; a minute means the renderer is gone. */
const PRINT_TIMEOUT_MS = 60_000;

async function printOnce(browser: Browser, html: string): Promise<Buffer> {
  const page = await browser.newPage();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('printing timed out')), PRINT_TIMEOUT_MS);
  });
  try {
    return await Promise.race([page.setContent(html, { waitUntil: 'load' }).then(() => page.pdf(PRINT)), timeout]);
  } finally {
    clearTimeout(timer);
    await page.close().catch(() => undefined);
  }
}

/** Scripts that need a font of their own (DejaVu and Liberation cover Latin, Greek, Cyrillic, Arabic, Hebrew). */
const SCRIPT_FONTS = [
  { script: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu, lang: 'ja' },
  { script: /\p{Script=Hangul}/gu, lang: 'ko' },
  { script: /\p{Script=Thai}/gu, lang: 'th' },
  { script: /\p{Script=Devanagari}/gu, lang: 'hi' },
];

/**
 * Whether Chromium can print `text` here: not when most of its letters are in a script no installed font has (it
 * prints empty boxes, and no reader could find the words). Such documents measure the machine, not the reader.
 */
export function createFontCheck(): (text: string) => boolean {
  const hasFont = (lang: string) => {
    try {
      return execFileSync('fc-list', [`:lang=${lang}`], { encoding: 'utf8' }).trim() !== '';
    } catch {
      return true; // no fontconfig to ask: print everything
    }
  };
  const missing = SCRIPT_FONTS.filter(({ lang }) => !hasFont(lang)).map(({ script }) => script);
  return (text) => {
    const letters = text.match(/\p{L}/gu)?.length ?? 0;
    const unprintable = missing.reduce((sum, script) => sum + (text.match(script)?.length ?? 0), 0);
    return unprintable <= letters / 2;
  };
}

export interface Printer {
  /** The PDF of `html`, from the cache or printed now; `printed` says which. */
  print(html: string): Promise<{ pdf: Buffer; printed: boolean }>;
  close(): Promise<void>;
}

export function createPrinter(): Printer {
  mkdirSync(CACHE_DIR, { recursive: true });
  const browser = createRetriedBrowser();
  return {
    async print(html) {
      const key = createHash('sha256').update(JSON.stringify(PRINT)).update(html).digest('hex').slice(0, 32);
      const file = `${CACHE_DIR}${key}.pdf`;
      if (existsSync(file)) return { pdf: readFileSync(file), printed: false };
      const pdf = await browser.run((chromium) => printOnce(chromium, html));
      writeFileSync(file, pdf);
      return { pdf, printed: true };
    },
    close: () => browser.close(),
  };
}
