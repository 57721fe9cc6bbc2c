// The account's crawls: GET /account/crawls (the key) and /auth/crawls (the session), and the dashboard's list of
// them, each with its status, progress, credits and start; another account's crawls are in neither.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setPlan, signIn, signUp, withKey } from '../helpers/accounts.js';
import { CRAWL_TEST_ENV, crawlSiteAddresses, startCrawl, waitForCrawl } from '../helpers/crawl-api.js';
import { startCrawlSite } from '../helpers/crawl-site.js';
import { startSmtpServer } from '../helpers/smtp.js';
import { buildTestApp } from '../helpers/test-app.js';

const site = await startCrawlSite({ pages: 30 });
const smtp = await startSmtpServer();
after(async () => {
  await Promise.all([site.close(), smtp.close()]);
});
const api = await buildTestApp(
  { after },
  { ...CRAWL_TEST_ENV, SMTP_URL: smtp.url },
  { addresses: crawlSiteAddresses() },
);

test('the dashboard lists the crawls of the account signed in, and only those', async () => {
  const owner = await signUp(api);
  await setPlan(api, owner.apiKey, 'pro');
  const id = await startCrawl(api, owner.apiKey, { url: `${site.origin()}/docs/1`, limit: 2, sitemap: 'skip' });
  const crawl = await waitForCrawl(api, owner.apiKey, id);
  assert.equal(crawl.status, 'completed');

  const listed = await api.request('GET', '/account/crawls', undefined, withKey(owner.apiKey));
  assert.equal(listed.status, 200, listed.text);
  assert.deepEqual(
    listed.body.map((c: { id: string; status: string; fetched: number }) => [c.id, c.status, c.fetched]),
    [[crawl.id, 'completed', 2]],
  );
  assert.equal(listed.body[0].credits, crawl.counts.credits);

  const { cookie } = await signIn(api, smtp, owner.email);
  assert.deepEqual((await api.request('GET', '/auth/crawls', undefined, { cookie })).body, listed.body);
  const page = await api.request('GET', '/dashboard', undefined, { cookie });
  assert.equal(page.status, 200);
  const section = /<section[^>]*id="crawls"[\s\S]*?<\/section>/.exec(page.text)?.[0] ?? '';
  assert.ok(section.includes(`<code>${crawl.id}</code>`), section);
  assert.ok(section.includes(`${site.origin()}/docs/1`));
  assert.ok(section.includes(`<td>completed<br />${crawl.stop_reason}</td>`), section);
  assert.match(section, /2 of 2\s*<meter min="0" max="2" value="2"/);
  assert.match(section, /<td>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/td>/);
  assert.doesNotMatch(page.text, /<script>/, 'no inline script');

  const stranger = await signUp(api);
  assert.deepEqual((await api.request('GET', '/account/crawls', undefined, withKey(stranger.apiKey))).body, []);
  const theirs = await api.request('GET', '/dashboard', undefined, {
    cookie: (await signIn(api, smtp, stranger.email)).cookie,
  });
  assert.ok(!theirs.text.includes(crawl.id), "another account's dashboard does not show the crawl");
  assert.match(theirs.text, /No crawls yet\./);
  assert.equal((await api.request('GET', '/auth/crawls')).status, 401);
});
