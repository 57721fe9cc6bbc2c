// A document read through the MCP tool fetch_url over POST /mcp: a PPTX from a loopback site, with the same slides
// as POST /fetch gives and fetch_info.document_type in the structured result.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { makePptx, TOMATO_DECK } from '../helpers/documents/pptx.js';
import { MEDIA, startDocumentSite } from '../helpers/document-site.js';
import { connectAsNewAccount, textOf } from '../helpers/mcp-client.js';
import { buildTestApp } from '../helpers/test-app.js';

// Set up at the top level: on Node 20 an `after` registered inside `before` runs as soon as that hook ends.
const site = await startDocumentSite({ '/talk.pptx': { type: MEDIA.octet, body: await makePptx() } });
const api = await buildTestApp({ after });
after(() => site.close());

test('fetch_url reads a PPTX: its slides in order with their notes, document_type pptx', async (t) => {
  const client = await connectAsNewAccount(t, api);
  const result = await client.callTool({ name: 'fetch_url', arguments: { url: site.url('/talk.pptx') } });
  assert.equal(result.isError, undefined, textOf(result));
  const s = result.structuredContent as {
    markdown: string;
    metadata: { title: string };
    fetch_info: { document_type: string; fetcher_used: string };
  };
  assert.equal(s.metadata.title, TOMATO_DECK.title);
  assert.equal(s.fetch_info.document_type, 'pptx');
  assert.equal(s.fetch_info.fetcher_used, 'pdf');
  assert.deepEqual(
    s.markdown.match(/^## Slide .*$/gm),
    TOMATO_DECK.slides.map((slide, i) => `## Slide ${i + 1}${slide.title ? `: ${slide.title}` : ''}`),
  );
  assert.match(s.markdown, /> \*\*Notes:\*\*\n>\n> July is the thirstiest month\./);
  assert.ok(textOf(result).includes('| June | 12 |'), 'the text an agent reads carries the slides too');
});
