// MCP clients for tests: the SDK's own Client over stdio (the server spawned as the README says) or over HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { signUp, withKey } from './accounts.js';
import type { TestApp } from './test-app.js';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

type Hookable = { after(fn: () => Promise<void>): unknown };

/**
 * `node bin/fetchdown.mjs mcp` with only the given environment (plus PATH and HOME), as an MCP client config runs it.
 */
export async function connectStdio(
  t: Hookable,
  env: Record<string, string>,
): Promise<{ client: Client; stderr: () => string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fetchdown-mcp-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/fetchdown.mjs', 'mcp'],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'fetchdown-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(async () => {
    await client.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { client, stderr: () => stderr };
}

export async function connectHttp(t: Hookable, base: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'fetchdown-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  t.after(() => client.close());
  return client;
}

/** POST /mcp as a new account: it needs credentials (an API key here; MCP clients sign in by OAuth). */
export async function connectAsNewAccount(t: Hookable, api: TestApp): Promise<Client> {
  return connectHttp(t, api.base, withKey((await signUp(api)).apiKey));
}

/** The text of a tool result's first content item. */
export function textOf(result: object): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content;
  return content?.[0]?.type === 'text' ? (content[0].text ?? '') : '';
}
