// The response map of a route for /openapi.json and serialisation: its 200 schema plus the documented error shapes.
import { Type, type TSchema } from '@sinclair/typebox';
import { ErrorResponse, HTTPValidationError } from '../contract/fetch.js';

/**
 * Response map for a route: its 200 schema plus the documented error shapes. A 422 listed in `errorStatuses` is a
 * route whose content errors are 422 too (no_text_layer, empty_content): either shape, validation's or {detail, code}.
 */
export function responses(ok: TSchema, errorStatuses: number[] = []): Record<number, TSchema> {
  const map: Record<number, TSchema> = { 200: ok, 422: Type.Ref(HTTPValidationError) };
  for (const status of errorStatuses) {
    map[status] =
      status === 422 ? Type.Union([Type.Ref(HTTPValidationError), Type.Ref(ErrorResponse)]) : Type.Ref(ErrorResponse);
  }
  return map;
}
