// One Chromium for bench:documents' printer and scanner, started when first needed: a renderer that crashed or hung
// (seen on a loaded machine, on long pages) gets a new browser and the work one more try.
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export interface RetriedBrowser {
  run<T>(work: (browser: Browser) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function createRetriedBrowser(): RetriedBrowser {
  let browser: Promise<Browser> | undefined;
  return {
    async run(work) {
      for (let attempt = 1; ; attempt++) {
        browser ??= chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-gpu'] });
        try {
          return await work(await browser);
        } catch (error) {
          const old = browser;
          browser = undefined;
          await (await old).close().catch(() => undefined);
          if (attempt === 2) throw error;
        }
      }
    },
    async close() {
      if (browser) await (await browser).close();
    },
  };
}
