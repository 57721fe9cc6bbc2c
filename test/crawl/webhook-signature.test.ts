// Crawl webhook signatures: what verifies, what must not, and a signed delivery through the tests' receiver.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import {
  signWebhook,
  verifyWebhook,
  WEBHOOK_EVENT_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
} from '../../src/crawl/webhook-signature.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = 'whsec_fixture_secret';
const BODY = JSON.stringify({ type: 'crawl.page', data: { url: 'http://site.test/docs/1', title: 'Doc 1 — ünïcode' } });
const NOW = 1_750_000_000;

test('the header is t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">, as Stripe signs', () => {
  const expected = createHmac('sha256', SECRET).update(`${NOW}.${BODY}`).digest('hex');
  assert.equal(signWebhook(SECRET, BODY, NOW + 0.9), `t=${NOW},v1=${expected}`);
  assert.equal(WEBHOOK_SIGNATURE_HEADER, 'fetchdown-signature');
  assert.equal(WEBHOOK_EVENT_ID_HEADER, 'fetchdown-event-id');
});

test('a signature verifies with its secret and body, within the tolerance either way', () => {
  const header = signWebhook(SECRET, BODY, NOW);
  assert.equal(verifyWebhook(SECRET, BODY, header, NOW), true);
  assert.equal(verifyWebhook(SECRET, BODY, header, NOW + 300), true);
  assert.equal(verifyWebhook(SECRET, BODY, header, NOW - 300), true);
  assert.equal(verifyWebhook(SECRET, BODY, header, NOW + 30, 60), true);
  assert.equal(verifyWebhook(SECRET, BODY, ` t=${NOW} , ${header.split(',')[1]} `, NOW), true, 'spaces around parts');
});

test('what must not verify', async (t) => {
  const header = signWebhook(SECRET, BODY, NOW);
  const [, v1] = header.split(',');
  const cases: [string, boolean][] = [
    ['a tampered body', verifyWebhook(SECRET, BODY.replace('docs/1', 'docs/2'), header, NOW)],
    ['a body with a byte more', verifyWebhook(SECRET, BODY + ' ', header, NOW)],
    ['the wrong secret', verifyWebhook('whsec_other', BODY, header, NOW)],
    ['an expired signature', verifyWebhook(SECRET, BODY, header, NOW + 301)],
    ['past a shorter tolerance', verifyWebhook(SECRET, BODY, header, NOW + 61, 60)],
    ['a timestamp from the future', verifyWebhook(SECRET, BODY, header, NOW - 301)],
    ['a timestamp changed to a fresh one', verifyWebhook(SECRET, BODY, `t=${NOW + 1000},${v1}`, NOW + 1000)],
    ['two timestamps', verifyWebhook(SECRET, BODY, `t=${NOW},t=${NOW + 1000},${v1}`, NOW)],
    ['no timestamp', verifyWebhook(SECRET, BODY, v1!, NOW)],
    ['no signature', verifyWebhook(SECRET, BODY, `t=${NOW}`, NOW)],
    ['a signature of another scheme only', verifyWebhook(SECRET, BODY, `t=${NOW},${v1!.replace('v1', 'v0')}`, NOW)],
    ['a truncated signature', verifyWebhook(SECRET, BODY, header.slice(0, -2), NOW)],
    ['an empty header', verifyWebhook(SECRET, BODY, '', NOW)],
    ['a header of garbage', verifyWebhook(SECRET, BODY, 'v1=zz,t=now,,=', NOW)],
  ];
  for (const [name, verified] of cases) await t.test(name, () => assert.equal(verified, false));
});

test('during a rotation, a header signed with the old and the new secret verifies with either', () => {
  const signedWith = (secret: string) => signWebhook(secret, BODY, NOW).split(',')[1]!;
  const header = `t=${NOW},${signedWith('whsec_old')},${signedWith('whsec_new')}`;
  assert.equal(verifyWebhook('whsec_old', BODY, header, NOW), true);
  assert.equal(verifyWebhook('whsec_new', BODY, header, NOW), true);
  assert.equal(verifyWebhook('whsec_third', BODY, header, NOW), false);
});

test('the receiver records deliveries as sent, refusing the first failFirst with a 500', async (t) => {
  const receiver = await startWebhookReceiver({ failFirst: 1 });
  t.after(() => receiver.close());
  const deliver = () =>
    fetch(receiver.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [WEBHOOK_SIGNATURE_HEADER]: signWebhook(SECRET, BODY, Date.now() / 1000),
        [WEBHOOK_EVENT_ID_HEADER]: 'evt_1',
      },
      body: BODY,
    });
  assert.equal((await deliver()).status, 500);
  assert.equal((await deliver()).status, 200);
  const deliveries = await receiver.waitFor((all) => all.length === 2, 1000);
  assert.deepEqual(
    deliveries.map((d) => d.status),
    [500, 200],
  );
  for (const delivery of deliveries) {
    assert.equal(delivery.body, BODY);
    assert.deepEqual(delivery.json, JSON.parse(BODY));
    assert.equal(delivery.headers[WEBHOOK_EVENT_ID_HEADER], 'evt_1');
    const header = String(delivery.headers[WEBHOOK_SIGNATURE_HEADER]);
    assert.equal(verifyWebhook(SECRET, delivery.body, header, Date.now() / 1000), true);
  }
  await assert.rejects(
    receiver.waitFor((all) => all.length === 3, 50),
    /no match among 2 webhook deliveries in 50 ms/,
  );
});
