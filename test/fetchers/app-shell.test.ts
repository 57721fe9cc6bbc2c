// The app-shell detector: script-rendered pages go to the browser; short real pages and server-rendered apps do not.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  appShellReason,
  detectAppShell,
  readShellSignals,
  SHELL_MAX_TEXT_CHARS,
} from '../../src/fetchers/app-shell.js';
import { APP_SHELL_HTML } from '../helpers/fixture-fetchers.js';

const page = (body: string, head = '') =>
  `<!doctype html><html><head><title>T</title>${head}</head><body>${body}</body></html>`;

describe('shells', () => {
  test('create-react-app: empty #root and a noscript', () => {
    assert.match(detectAppShell(APP_SHELL_HTML) ?? '', /empty mount point/);
  });

  for (const [name, html] of [
    ['Next.js SPA', page('<div id="__next"></div>', '<script src="/_next/main.js"></script>')],
    ['Nuxt', page('<div id="__nuxt"></div><script type="module" src="/_nuxt/entry.js"></script>')],
    ['Vue/Vite #app', page('<div id="app"></div><script type="module" src="/assets/index.js"></script>')],
    ['Angular', page('<app-root></app-root><script src="main.js" type="module"></script>')],
    ['only a script', page('<script>document.body.innerHTML = "<p>" + "x".repeat(10) + "</p>"</script>')],
    [
      'a noscript that asks for JavaScript',
      page(
        '<noscript>Please enable JavaScript to view this site.</noscript><div class="spinner">Loading…</div><script src="/b.js"></script>',
      ),
    ],
    [
      'a big inline bootstrap',
      page(
        `<header>Menu Home About Contact Careers Press</header><div id="mount"></div><script>${'var a=1;'.repeat(2000)}</script>`,
      ),
    ],
  ] as const) {
    test(name, () => assert.ok(detectAppShell(html), name));
  }
});

describe('not shells', () => {
  for (const [name, html] of [
    ['a short real page without scripts', page('<h1>Subscribed</h1><p>Thanks, you are now subscribed.</p>')],
    [
      'a short real page with analytics',
      page(
        '<div id="root"><p>This guide has moved to the new tomato section of the site; the old address keeps working.</p></div>',
        '<script async src="https://a.invalid/gtag.js"></script><script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)}gtag("js",new Date());</script>',
      ),
    ],
    ['an empty page without scripts (nothing could render more)', page('')],
    [
      'server-rendered Next.js with a large data island',
      page(
        `<div id="__next"><article><p>${'Real server-rendered words. '.repeat(20)}</p></article></div><script id="__NEXT_DATA__" type="application/json">${'{"x":"' + 'y'.repeat(50000) + '"}'}</script><script src="/_next/main.js"></script>`,
      ),
    ],
    [
      'a long article with big inline ad scripts',
      page(
        `<article>${'<p>Plenty of text in this article. </p>'.repeat(60)}</article><script>${'ads();'.repeat(20000)}</script>`,
      ),
    ],
    [
      'an empty mount point on a page with real text',
      page(
        `<div id="root"></div><article>${'<p>Server rendered content that is real. </p>'.repeat(10)}</article><script src="/x.js"></script>`,
      ),
    ],
  ] as const) {
    test(name, () => assert.equal(detectAppShell(html), null));
  }

  test('visible text at the bound is never a shell, whatever else the page has', () => {
    const text = 'a'.repeat(SHELL_MAX_TEXT_CHARS);
    const signals = { ...readShellSignals(page(`<div id="root"></div><p>${text}</p><script src="/x.js"></script>`)) };
    assert.equal(signals.textChars, SHELL_MAX_TEXT_CHARS);
    assert.equal(appShellReason(signals), null);
    assert.ok(appShellReason({ ...signals, textChars: SHELL_MAX_TEXT_CHARS - 1 }));
  });

  test('script, style, template and JSON islands are not visible text', () => {
    const signals = readShellSignals(
      page(
        '<script>var words = "lots of words here"</script><style>.a{}</style><template><p>hidden words</p></template><p>Hi</p>',
      ),
    );
    assert.equal(signals.textChars, 2);
    assert.equal(signals.inlineScriptBytes, 'var words = "lots of words here"'.length);
  });
});
