// The integration pages' set-ups: for each client or framework of src/discovery/integrations.ts, a short copy-paste
// set-up with this server's PUBLIC_BASE_URL filled in.
import { INTEGRATIONS, type Integration, type IntegrationPath } from '../discovery/integrations.js';
import { codeBlock } from './components.js';
import { html, type Html } from './html.js';

const KEY = 'fd_live_YOUR_KEY';

const code = (language: string, text: string) => codeBlock(language, text, `${language} set-up`);

const getKey = html`<p>
  You need an API key: <a href="/dashboard">sign in to the dashboard</a> (an e-mail address is enough; the free tier
  needs no card), create a key and paste it where it says <code>${KEY}</code>.
</p>`;

/** Each integration's set-up, as the body of its page. */
const SET_UPS: Record<IntegrationPath, (base: string) => Html> = {
  '/claude': (base) =>
    html`${getKey}
      <h2>Claude Code</h2>
      <p>One command adds the remote MCP server; nothing is installed locally.</p>
      ${code('sh', `claude mcp add --transport http fetchdown ${base}/mcp --header "X-Service-Key: ${KEY}"`)}
      <h2>Claude Desktop</h2>
      <p>
        Add this to <code>claude_desktop_config.json</code> (Settings → Developer → Edit Config) and restart Claude. It
        runs the stdio server of a Fetchdown checkout in remote mode, so calls are billed to your key.
      </p>
      ${code(
        'json',
        JSON.stringify(
          {
            mcpServers: {
              fetchdown: {
                command: 'node',
                args: ['/absolute/path/to/fetchdown/bin/fetchdown.mjs', 'mcp'],
                env: { FETCHDOWN_API_URL: base, FETCHDOWN_API_KEY: KEY },
              },
            },
          },
          null,
          2,
        ),
      )}
      <h2>What Claude gets</h2>
      <p>
        Four tools: <code>fetch_url</code>, <code>estimate_tokens</code>, <code>fetch_multiple</code> and
        <code>search_and_fetch</code>. Ask “read ${base}/examples and summarise it” to try one. The
        <a href="/examples/mcp-tools">MCP example</a> shows a real call and its answer.
      </p>`,
  '/cursor': (base) =>
    html`${getKey}
      <h2>Project or global set-up</h2>
      <p>
        Put this in <code>.cursor/mcp.json</code> in a project, or in <code>~/.cursor/mcp.json</code> for every project.
        Cursor connects to the Streamable HTTP endpoint directly.
      </p>
      ${code(
        'json',
        JSON.stringify(
          { mcpServers: { fetchdown: { url: `${base}/mcp`, headers: { 'X-Service-Key': KEY } } } },
          null,
          2,
        ),
      )}
      <h2>Check it</h2>
      <p>
        Settings → MCP should list <code>fetchdown</code> with seven tools. In the agent chat, ask it to fetch a
        documentation page with <code>max_tokens</code> 2000: long pages come back trimmed with an outline of what was
        cut and a cursor to read on.
      </p>`,
  '/langchain': (base) =>
    html`${getKey}
      <h2>Through MCP (langchain-mcp-adapters)</h2>
      ${code('sh', 'pip install langchain-mcp-adapters langgraph "langchain[anthropic]"')}
      ${code(
        'python',
        `import asyncio
from langchain_mcp_adapters.client import MultiServerMCPClient
from langgraph.prebuilt import create_react_agent

client = MultiServerMCPClient({
    "fetchdown": {
        "transport": "streamable_http",
        "url": "${base}/mcp",
        "headers": {"X-Service-Key": "${KEY}"},
    }
})

async def main():
    tools = await client.get_tools()  # fetch_url, estimate_tokens, fetch_multiple, search_and_fetch
    agent = create_react_agent("anthropic:claude-sonnet-4-5", tools)
    answer = await agent.ainvoke({"messages": "Summarise ${base}/examples"})
    print(answer["messages"][-1].content)

asyncio.run(main())`,
      )}
      <h2>As a plain tool over HTTP</h2>
      ${code(
        'python',
        `import requests
from langchain_core.tools import tool

@tool
def fetch_page(url: str, max_tokens: int = 4000) -> str:
    """Fetch a web page as clean Markdown, trimmed to max_tokens."""
    r = requests.post("${base}/fetch", json={"url": url, "max_tokens": max_tokens},
                      headers={"X-Service-Key": "${KEY}"}, timeout=60)
    r.raise_for_status()
    return r.json()["markdown"]`,
      )}`,
};

/** Every integration with the body of its page. */
export const INTEGRATION_PAGES: readonly (Integration & { body(base: string): Html })[] = INTEGRATIONS.map(
  (integration) => ({ ...integration, body: SET_UPS[integration.path] }),
);
