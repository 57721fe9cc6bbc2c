// The tokens of the MCP tool list in a client's context (bench/mcp-tools.ts prints them; test/mcp/tool-list.test.ts
// holds the target): each tool as clients put it in front of the model, counted with our own o200k tokenizer.
import { listTools } from '../src/contract/tools.js';
import { countTokens } from '../src/tokens/count.js';

/** Issue 36: the whole list, under this many tokens. */
export const TOOL_LIST_TARGET = 1500;

export function measureToolList() {
  const tools = listTools().map((tool) => ({
    name: tool.name,
    // What a client shows the model of a tool; annotations and _meta are for the client itself.
    tokens: countTokens(
      JSON.stringify({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
      }),
    ),
    descriptionTokens: countTokens(tool.description),
    outputTokens: countTokens(JSON.stringify(tool.outputSchema)),
  }));
  const sum = (pick: (tool: (typeof tools)[number]) => number) => tools.reduce((n, tool) => n + pick(tool), 0);
  return { tools, total: sum((tool) => tool.tokens), outputTotal: sum((tool) => tool.outputTokens) };
}
