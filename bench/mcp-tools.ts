// What the MCP tool list costs in a client's context: o200k tokens of each tool as a client puts it in front of the
// model (name, title, description and inputSchema, as JSON), and of its outputSchema apart (clients that validate
// results read it; few show it to the model). Issue 36's target: under 1,500 tokens for all the tools.
// Run: npm run bench:mcp-tools
import { measureToolList, TOOL_LIST_TARGET } from './tool-list-cost.js';

const { tools, total, outputTotal } = measureToolList();
console.log('| tool | name, title, description, inputSchema | of which description | outputSchema |');
console.log('|---|---:|---:|---:|');
for (const tool of tools)
  console.log(`| ${tool.name} | ${tool.tokens} | ${tool.descriptionTokens} | ${tool.outputTokens} |`);
console.log(`| **all ${tools.length}** | **${total}** | | ${outputTotal} |`);
console.log(
  `\nTarget: under ${TOOL_LIST_TARGET.toLocaleString('en')} tokens: ${total < TOOL_LIST_TARGET ? 'met' : 'not met'}.`,
);
