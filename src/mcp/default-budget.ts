// The token budget of an MCP result when the caller sets none (MCP_DEFAULT_MAX_TOKENS): MCP clients refuse or cut
// large results (Claude Code: over 25,000 tokens); a trimmed page's outline and next_cursor tell the model how to read
// on.
import type { ToolName } from '../contract/tools.js';

/** search_and_fetch's smallest max_tokens_each (its schema's minimum). */
const SEARCH_MIN_EACH = 100;

/**
 * Fills in the budget on validated `args` where the caller's own arguments (`given`) left it out: all of it for
 * fetch_url's page; for fetch_multiple and search_and_fetch an equal share per page, so the whole result fits it.
 * search_and_fetch keeps its smaller default per result when that already fits. A budget of 0 changes nothing.
 */
export function applyDefaultBudget(
  tool: ToolName,
  given: Record<string, unknown>,
  args: Record<string, unknown>,
  budget: number,
): void {
  if (budget <= 0) return;
  if (tool === 'fetch_url' && given.max_tokens == null) args.max_tokens = budget;
  if (tool === 'fetch_multiple' && given.max_tokens_each == null) {
    args.max_tokens_each = Math.max(1, Math.floor(budget / (args.urls as unknown[]).length));
  }
  if (tool === 'search_and_fetch' && given.max_tokens_each == null) {
    const share = Math.max(SEARCH_MIN_EACH, Math.floor(budget / (args.num_results as number)));
    args.max_tokens_each = Math.min(args.max_tokens_each as number, share);
  }
}
