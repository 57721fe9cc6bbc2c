// Bot-challenge detection: challenge and WAF pages are recognised; ordinary pages with a captcha or the words are not.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { detectChallenge } from '../../src/fetchers/challenge.js';

const article = (extra: string) =>
  `<html><head><title>Contact us</title></head><body><article>${'<p>A real page with a lot of real words on it. </p>'.repeat(40)}${extra}</article></body></html>`;

describe('challenges', () => {
  test('cf-mitigated: challenge decides on its own, whatever the body', () => {
    assert.match(
      detectChallenge({ status: 403, headers: { 'cf-mitigated': 'challenge' }, html: '' }) ?? '',
      /cf-mitigated/,
    );
  });

  test('Cloudflare "Just a moment..." on 403 and on 200', () => {
    const html =
      '<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>';
    assert.equal(detectChallenge({ status: 403, headers: {}, html }), 'Cloudflare challenge');
    assert.equal(detectChallenge({ status: 200, headers: {}, html }), 'Cloudflare challenge');
  });

  for (const [name, status, html] of [
    ['DataDome', 403, '<html><body><script src="https://geo.captcha-delivery.com/captcha/"></script></body></html>'],
    ['PerimeterX', 403, '<html><body><div id="px-captcha"></div></body></html>'],
    [
      'a captcha wall on 429',
      429,
      '<html><body><div class="g-recaptcha"></div><p>Please verify you are a human</p></body></html>',
    ],
    [
      'Akamai access denied',
      403,
      "<html><head><title>Access Denied</title></head><body>You don't have permission. Reference #18.abc</body></html>",
    ],
    ['a browser check on 503', 503, '<html><body>Checking your browser before accessing the site.</body></html>'],
  ] as const) {
    test(name, () => assert.ok(detectChallenge({ status, headers: {}, html }), name));
  }
});

describe('not challenges', () => {
  test('a long page that embeds a captcha in its form, on 200', () => {
    assert.equal(
      detectChallenge({ status: 200, headers: {}, html: article('<form><div class="g-recaptcha"></div></form>') }),
      null,
    );
  });
  test('a long article that quotes "Just a moment..." and links the challenge platform docs', () => {
    assert.equal(
      detectChallenge({
        status: 200,
        headers: {},
        html: article('<p>The page said Just a moment... see /cdn-cgi/challenge-platform/ docs.</p>'),
      }),
      null,
    );
  });
  test('a plain 403 and a plain 503', () => {
    assert.equal(detectChallenge({ status: 403, headers: {}, html: '<h1>Forbidden</h1>' }), null);
    assert.equal(
      detectChallenge({ status: 503, headers: { server: 'cloudflare' }, html: '<h1>Service Unavailable</h1>' }),
      null,
    );
  });
});
