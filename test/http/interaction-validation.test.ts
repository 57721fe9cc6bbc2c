// Issue 34's fields refused with a 422 in FastAPI's shape ({detail: [{loc, msg, type}]}) at the field at fault, on
// POST /fetch, /fetch/batch and GET /r/, before anything is fetched: too many or malformed actions, bad selectors,
// headers outside the allow-list, waits and timeouts out of range, a forced fetcher that cannot do what is asked, and
// credentials in a URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { withKey } from '../helpers/accounts.js';
import { assertInvalid, startInteractionWorld, type InteractionWorld } from '../helpers/interaction-app.js';

let world: InteractionWorld;

before(async () => (world = await startInteractionWorld()), { timeout: 60_000 });
after(() => world?.close());

const fetchMore = (fields: Record<string, unknown>) => world.fetchPage({ url: world.site.url('/more'), ...fields });

describe('422s for the fields of pages that need more than a load', { timeout: 120_000 }, () => {
  test('21 actions are too many', async () => {
    const actions = Array.from({ length: 21 }, () => ({ type: 'wait', milliseconds: 1 }));
    assertInvalid(await fetchMore({ actions }), ['body', 'actions'], 'too_long');
    // 20 are not refused for their number (they are only refused here for the fetcher).
    const twenty = await fetchMore({ actions: actions.slice(1), fetcher: 'html' });
    assert.deepEqual(
      twenty.body.detail.map((issue: { loc: unknown[] }) => issue.loc),
      [['body', 'fetcher']],
    );
  });

  test('an unknown action type, a click without its selector, a field the type does not take', async () => {
    const unknown = assertInvalid(
      await fetchMore({ actions: [{ type: 'hover', selector: '#more' }] }),
      ['body', 'actions', 0, 'type'],
      'enum',
    );
    assert.match(unknown.msg, /'click'/);
    assertInvalid(
      await fetchMore({ actions: [{ type: 'wait', milliseconds: 1 }, { type: 'click' }] }),
      ['body', 'actions', 1, 'selector'],
      'missing',
    );
    assertInvalid(
      await fetchMore({ actions: [{ type: 'click', selector: '#more', text: 'x' }] }),
      ['body', 'actions', 0, 'text'],
      'extra_forbidden',
    );
    assertInvalid(await fetchMore({ actions: [{ type: 'wait' }] }), ['body', 'actions', 0], 'value_error');
  });

  test('a CSS selector that does not parse, in an action and in wait_for', async () => {
    const inAction = assertInvalid(
      await fetchMore({ actions: [{ type: 'click', selector: 'div[' }] }),
      ['body', 'actions', 0, 'selector'],
      'selector_invalid',
    );
    assert.match(inAction.msg, /div\[/);
    const inWait = assertInvalid(await fetchMore({ wait_for: 'p:::bad' }), ['body', 'wait_for'], 'selector_invalid');
    assert.match(inWait.msg, /p:::bad/);
  });

  test('headers outside the allow-list are named, each at its own location', async () => {
    for (const name of ['Host', 'Connection']) {
      const issue = assertInvalid(
        await fetchMore({ headers: { [name]: 'x', 'X-Custom': 'fine' } }),
        ['body', 'headers', name],
        'header_not_allowed',
      );
      assert.match(issue.msg, new RegExp(name));
    }
    const both = await fetchMore({ headers: { Host: 'a', 'Transfer-Encoding': 'chunked', Authorization: 'ok' } });
    assert.deepEqual(
      both.body.detail.map((issue: { loc: unknown[] }) => issue.loc),
      [
        ['body', 'headers', 'Host'],
        ['body', 'headers', 'Transfer-Encoding'],
      ],
    );
  });

  test('wait_for above 30000 ms and a timeout below 1000 ms', async () => {
    assertInvalid(await fetchMore({ wait_for: 30_001 }), ['body', 'wait_for'], 'less_than_equal');
    // Digits in a string are milliseconds too (as MCP clients and query strings send them), with the same limit.
    assertInvalid(await fetchMore({ wait_for: '30001' }), ['body', 'wait_for'], 'less_than_equal');
    assertInvalid(await fetchMore({ timeout: 999 }), ['body', 'timeout'], 'greater_than_equal');
    assertInvalid(await fetchMore({ timeout: 60_001 }), ['body', 'timeout'], 'less_than_equal');
  });

  test('a forced fetcher that cannot do what is asked: html with actions, reader with cookies', async () => {
    const html = assertInvalid(
      await fetchMore({ fetcher: 'html', actions: [{ type: 'click', selector: '#more' }] }),
      ['body', 'fetcher'],
      'value_error',
    );
    assert.match(html.msg, /html/);
    for (const fields of [{ wait_for: '#ready' }, { mobile: true }, { screenshot: {} }])
      assertInvalid(await fetchMore({ fetcher: 'pdf', ...fields }), ['body', 'fetcher'], 'value_error');
    const reader = assertInvalid(
      await fetchMore({ fetcher: 'reader', cookies: { session: 'abc' } }),
      ['body', 'fetcher'],
      'value_error',
    );
    assert.match(reader.msg, /reader/);
    assertInvalid(
      await fetchMore({ fetcher: 'reader', headers: { Authorization: 'Bearer abc' } }),
      ['body', 'fetcher'],
      'value_error',
    );
  });

  test('POST /fetch/batch refuses the same fields at the same locations', async () => {
    const res = await world.api.request(
      'POST',
      '/fetch/batch',
      { urls: [world.site.url('/late')], headers: { Host: 'x' }, actions: [{ type: 'click' }] },
      withKey(world.apiKey),
    );
    assertInvalid(res, ['body', 'headers', 'Host'], 'header_not_allowed');
    assertInvalid(res, ['body', 'actions', 0, 'selector'], 'missing');
  });

  test('GET /r/ takes no headers or cookies in its URL, and its JSON fields must be JSON', async () => {
    const reader = (query: string) =>
      world.api.request('GET', `/r/${world.site.url('/more')}?${query}`, undefined, withKey(world.apiKey));
    const headers = assertInvalid(
      await reader(`headers=${encodeURIComponent('{"Cookie":"session=abc"}')}`),
      ['query', 'headers'],
      'value_error',
    );
    assert.match(headers.msg, /POST \/fetch/);
    assertInvalid(await reader('cookies=session%3Dabc'), ['query', 'cookies'], 'value_error');
    assertInvalid(await reader('actions=%5Bnot-json'), ['query', 'actions'], 'json_invalid');
    assertInvalid(
      await reader(`actions=${encodeURIComponent('[{"type":"click"}]')}`),
      ['query', 'actions', 0, 'selector'],
      'missing',
    );
  });
});
