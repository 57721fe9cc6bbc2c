// A failed agent operation as the HTTP API would answer it, local or remote, with a summary a model or a person can act
// on: the MCP tools' error results and the CLI's error messages read the same. Kept apart from remote.ts so the
// surfaces can tell the failures apart without loading the HTTP client.
import { renderError, type ValidationError } from '../errors.js';

/** The API answered with an error (or could not be reached): its status and body, to be shown unchanged. */
export class RemoteApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.detail === 'string' ? body.detail : `the Fetchdown API answered ${status}`);
  }
}

/** Any failure as the HTTP API would answer it (status and body), plus a summary a model or a person can act on. */
export function describeFailure(error: unknown): { status: number; body: Record<string, unknown>; summary: string } {
  const { status, body }: { status: number; body: Record<string, unknown> } =
    error instanceof RemoteApiError ? { status: error.status, body: error.body } : renderError(error);
  let summary: string;
  if (Array.isArray(body.detail)) {
    const issues = (body.detail as ValidationError['issues']).map((i) => `- ${i.loc.join('.')}: ${i.msg}`);
    summary = `Error ${status} validation_error: invalid arguments\n${issues.join('\n')}`;
  } else {
    summary = `Error ${status} ${typeof body.code === 'string' ? body.code : 'error'}: ${String(body.detail)}`;
    if (typeof body.retry_hint === 'string') summary += `\nNext step: ${body.retry_hint}`;
  }
  return { status, body, summary };
}
