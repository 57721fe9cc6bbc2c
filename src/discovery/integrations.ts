// The integrations as data: one top-level page per client or framework, with its name, title and description.
// /llms.txt, /spec, the public paths and the site's navigation list them; src/pages/integrations.ts renders each
// page's set-up.

export interface Integration {
  path: `/${string}`;
  name: string;
  title: string;
  description: string;
}

export const INTEGRATIONS = [
  {
    path: '/claude',
    name: 'Claude',
    title: 'Fetchdown for Claude Desktop and Claude Code',
    description:
      'Give Claude a web fetch tool that returns clean Markdown with exact token counts: set-up ' +
      'for Claude Desktop and Claude Code.',
  },
  {
    path: '/cursor',
    name: 'Cursor',
    title: 'Fetchdown for Cursor',
    description:
      'Let Cursor read documentation pages as clean, token-counted Markdown through the Fetchdown MCP server.',
  },
  {
    path: '/langchain',
    name: 'LangChain',
    title: 'Fetchdown for LangChain',
    description:
      'Use Fetchdown from LangChain agents: the MCP tools through langchain-mcp-adapters, or a plain HTTP tool.',
  },
] as const satisfies readonly Integration[];

/** The path of one of the integrations: the key its page's set-up is found by. */
export type IntegrationPath = (typeof INTEGRATIONS)[number]['path'];
