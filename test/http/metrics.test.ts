// GET /metrics: the Prometheus text format with the request, fetch, cache, credit, queue and process metrics, open to
// loopback callers only unless METRICS_TOKEN is set, then only with that bearer token.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { signUp, withKey } from '../helpers/accounts.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { buildTestApp } from '../helpers/test-app.js';

const site = await startFixtureSite({ after });

/** The value of the first sample of `name` whose labels include every one of `labels`. */
function sample(text: string, name: string, labels: string[] = []): number | undefined {
  const line = text
    .split('\n')
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && labels.every((label) => l.includes(label)));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('GET /metrics', () => {
  test('counts requests, fetches, cache lookups and credits, with queue gauges and process metrics', async (t) => {
    const api = await buildTestApp(t);
    const { apiKey } = await signUp(api);
    const url = site.url(`/unique/metrics-${process.pid}-${Date.now()}`);
    for (let i = 0; i < 2; i++)
      assert.equal((await api.request('POST', '/fetch', { url }, withKey(apiKey))).status, 200);
    assert.equal((await api.request('POST', '/fetch', { url: site.url('/status/404') }, withKey(apiKey))).status, 502);

    const res = await api.get('/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = res.text;
    assert.ok(sample(text, 'fetchdown_http_requests_total', ['route="/fetch"', 'method="POST"', 'status="200"'])! >= 2);
    assert.ok(sample(text, 'fetchdown_http_request_duration_seconds_count', ['route="/fetch"', 'status="502"'])! >= 1);
    assert.ok(sample(text, 'fetchdown_fetches_total', ['fetcher="html"', 'outcome="ok"'])! >= 1);
    assert.ok(sample(text, 'fetchdown_fetches_total', ['outcome="upstream_status"'])! >= 1);
    assert.ok(sample(text, 'fetchdown_cache_lookups_total', ['result="hit"'])! >= 1);
    assert.ok(sample(text, 'fetchdown_cache_lookups_total', ['result="miss"'])! >= 1);
    assert.ok(sample(text, 'fetchdown_credits_charged_total', ['operation="fetch"'])! > 0);
    for (const gauge of [
      'fetchdown_upstream_fetches_in_flight',
      'fetchdown_upstream_fetches_queued',
      'fetchdown_browser_pages_busy',
      'fetchdown_browser_pages_queued',
    ]) {
      assert.notEqual(sample(text, gauge), undefined, gauge);
    }
    assert.ok(sample(text, 'fetchdown_http_requests_in_flight')! >= 1, 'the scrape itself is in flight');
    assert.ok(sample(text, 'process_resident_memory_bytes')! > 0);
    assert.notEqual(sample(text, 'nodejs_eventloop_lag_p99_seconds'), undefined);
    assert.match(text, /# HELP fetchdown_fetches_total /);
  });

  test('without METRICS_TOKEN, a client forwarded from another address is refused', async (t) => {
    const api = await buildTestApp(t, { TRUST_PROXY: 'loopback' });
    const res = await api.request('GET', '/metrics', undefined, { 'x-forwarded-for': '203.0.113.9' });
    assert.equal(res.status, 401);
    assert.match(res.body.detail, /loopback callers only/);
  });

  test('with METRICS_TOKEN, only its bearer token reads the metrics', async (t) => {
    const token = 'metrics-token-0123456789';
    const api = await buildTestApp(t, { METRICS_TOKEN: token });
    assert.equal((await api.get('/metrics')).status, 401);
    assert.equal(
      (await api.request('GET', '/metrics', undefined, { authorization: 'Bearer wrong-token-0123456789' })).status,
      401,
    );
    const res = await api.request('GET', '/metrics', undefined, { authorization: `Bearer ${token}` });
    assert.equal(res.status, 200);
    assert.match(res.text, /fetchdown_http_requests_total/);
  });
});
