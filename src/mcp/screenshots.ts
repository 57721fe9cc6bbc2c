// Screenshots in MCP: a fetch's pictures go to the model as resource_link items (their URLs), never as image data in
// the result; a client that wants the image reads the link with resources/read, as the caller who took it.
import type { ReadResourceResult, ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { AgentOperations } from '../operations/agent.js';

interface WithShots {
  screenshot_url?: string;
  actions?: { screenshots: string[] };
}

const FILE = /\/screenshots\/([^/?#]+)$/;

function linkTo(uri: string, name: string): ResourceLink {
  return { type: 'resource_link', uri, name, mimeType: uri.endsWith('.png') ? 'image/png' : 'image/jpeg' };
}

/** The resource_link items of a fetch_url or fetch_multiple result: one per screenshot, in the result's order. */
export function screenshotLinks(result: object): ResourceLink[] {
  const pages: WithShots[] = 'results' in result ? (result.results as WithShots[]) : [result];
  return pages.flatMap((page, index) => {
    const where = pages.length > 1 ? ` of result ${index + 1}` : '';
    return [
      ...(page.screenshot_url ? [linkTo(page.screenshot_url, `screenshot${where}`)] : []),
      ...(page.actions?.screenshots ?? []).map((uri, step) => linkTo(uri, `screenshot action ${step + 1}${where}`)),
    ];
  });
}

/** resources/read of a screenshot link: the image, to the caller who took it. */
export async function readScreenshot(operations: AgentOperations, uri: string): Promise<ReadResourceResult> {
  const file = FILE.exec(new URL(uri, 'http://fetchdown.invalid').pathname)?.[1];
  const shot = file ? await operations.screenshot(file) : null;
  if (!shot)
    throw new McpError(ErrorCode.InvalidParams, `no such resource: ${uri} (screenshots expire, and are their taker's)`);
  return { contents: [{ uri, mimeType: shot.type, blob: shot.bytes.toString('base64') }] };
}
