// Screenshots over MCP (POST /mcp, the SDK's client): fetch_url with `screenshot` and a screenshot action answers
// resource_link items, no image data; resources/read returns the PNG to the caller who took it and refuses another.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signUp } from '../helpers/accounts.js';
import { startInteractionSite, type InteractionSite } from '../helpers/interaction-site.js';
import { connectHttp } from '../helpers/mcp-client.js';
import { buildTestApp, type TestApp } from '../helpers/test-app.js';
import { browserSkip } from '../fetchers/chromium.js';

const skip = browserSkip();
let site: InteractionSite;
let api: TestApp;

if (!skip) {
  before(
    async () => {
      site = await startInteractionSite();
      api = await buildTestApp(
        { after },
        { FETCH_ALLOW_PRIVATE_NETWORKS: '0', ROBOTS_TXT: 'ignore', BROWSER_POOL_SIZE: '1' },
        { addresses: { isBlocked: (ip) => ip !== '127.0.0.1' } },
      );
    },
    { timeout: 60_000 },
  );
  after(() => site.close());
}

const PNG = [0x89, 0x50, 0x4e, 0x47];

describe('screenshots over MCP', { skip, timeout: 180_000 }, () => {
  test('fetch_url links its screenshots, which resources/read returns to their taker alone', async (t) => {
    const owner = await connectHttp(t, api.base, { 'X-Service-Key': (await signUp(api)).apiKey });
    const result = (await owner.callTool({
      name: 'fetch_url',
      arguments: {
        url: site.url('/more'),
        actions: [{ type: 'click', selector: '#more' }, { type: 'screenshot' }],
        screenshot: { full_page: true },
      },
    })) as { isError?: boolean; content: { type: string; uri?: string; mimeType?: string; text?: string }[] };
    assert.ok(!result.isError, JSON.stringify(result.content));
    const links = result.content.filter((item) => item.type === 'resource_link');
    assert.deepEqual(
      links.map((link) => link.mimeType),
      ['image/png', 'image/png'],
    );
    assert.ok(links.every((link) => /\/screenshots\/[\w-]{24}\.png$/.test(link.uri!)));
    assert.ok(!JSON.stringify(result).includes('iVBORw0KGgo'), 'no base64 PNG in the tool result');
    assert.match(result.content[0]!.text!, /Item number 10/);

    const read = await owner.readResource({ uri: links[0]!.uri! });
    const content = read.contents[0] as { blob: string; mimeType: string };
    assert.equal(content.mimeType, 'image/png');
    assert.deepEqual([...Buffer.from(content.blob, 'base64').subarray(0, 4)], PNG);

    const stranger = await connectHttp(t, api.base, { 'X-Service-Key': (await signUp(api)).apiKey });
    await assert.rejects(stranger.readResource({ uri: links[0]!.uri! }), /no such resource/);
  });
});
