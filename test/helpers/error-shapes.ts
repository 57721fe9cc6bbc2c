// The shapes an error answer may take: a 422 in FastAPI's list shape ({detail: [{loc, msg, type}]}), every other error
// {detail, code} with the status errors.ts gives that code, and the OAuth endpoints' RFC 6749 shape ({error,
// error_description}); all carry the request id.
import { ERROR_STATUS, type ErrorCode } from '../../src/errors.js';

/** The error codes of the OAuth RFCs (6749, 7009, 7591, 8707) and the MCP SDK's handlers, with their statuses. */
const OAUTH_ERRORS: Record<string, number[]> = {
  invalid_request: [400, 413, 415],
  invalid_client: [400, 401],
  invalid_grant: [400],
  unauthorized_client: [400],
  unsupported_grant_type: [400],
  unsupported_token_type: [400],
  invalid_scope: [400],
  invalid_target: [400],
  invalid_client_metadata: [400],
  method_not_allowed: [405],
  server_error: [503],
};

/** Why `body` is not an error answer of `status` in a documented shape, or null when it is. */
export function errorShapeProblem(status: number, body: any): string | null {
  if (typeof body?.request_id !== 'string') return `a ${status} without request_id`;
  if (typeof body.error === 'string') {
    const statuses = OAUTH_ERRORS[body.error];
    return statuses?.includes(status) ? null : `a ${status} with OAuth error ${body.error}`;
  }
  if (typeof body.detail === 'string' && typeof body.code === 'string') {
    const expected = ERROR_STATUS[body.code as ErrorCode] as number | undefined;
    return expected === status ? null : `a ${status} with code ${body.code} (${expected ?? 'no such code'})`;
  }
  if (status !== 422 || !Array.isArray(body.detail) || body.detail.length === 0) return `a ${status} of no known shape`;
  const shaped = body.detail.every(
    (item: any) => Array.isArray(item?.loc) && typeof item.msg === 'string' && typeof item.type === 'string',
  );
  return shaped ? null : 'a 422 whose detail is not [{loc, msg, type}]';
}
