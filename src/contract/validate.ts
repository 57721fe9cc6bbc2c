// One validation for every surface: the same Ajv rules (our URL format, defaults filled in, unknown fields refused)
// and failures as FastAPI-shaped issues. JSON values are checked strictly ("5" is not a number) wherever they come
// from; only HTTP path and query strings, which cannot carry types, are coerced (by the HTTP surface's compiler).
import type { TSchema } from '@sinclair/typebox';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ValidationError } from '../errors.js';
import { toValidationIssues } from './issues.js';

/**
 * `format: uri` as browsers and pydantic's HttpUrl read URLs (WHATWG): ajv-formats' RFC 3986 check refuses what people
 * paste every day, such as `https://de.wikipedia.org/wiki/Bücher`, IDN hosts, or `|` and `[]` in a query. Control
 * characters and spaces are still refused: a URL never needs them raw.
 */
export function isUri(value: string): boolean {
  if (recentUris.has(value)) return true;
  if (/[\u0000-\u0020\u007f]/.test(value)) return false;
  try {
    new URL(value);
  } catch {
    return false;
  }
  if (recentUris.size >= 1024) recentUris.clear();
  recentUris.add(value);
  return true;
}

/**
 * URLs that passed lately: agents send the same ones again and again, and parsing is most of the body check. A pure
 * function's memo, module-level because an Ajv format is a plain function shared by every Ajv instance.
 */
const recentUris = new Set<string>();

export function createAjv(options: Options): Ajv {
  // Unknown fields are refused (422 extra_forbidden) rather than silently dropped, so a typo never goes unnoticed.
  const ajv = new Ajv({ removeAdditional: false, useDefaults: true, allErrors: true, strict: false, ...options });
  addFormats.default(ajv);
  ajv.addFormat('uri', isUri);
  return ajv;
}

// Without checking each schema against the JSON Schema meta-schema first: ours are fixed at build time (the HTTP
// surface's compiler, src/http/validator.ts, still checks them), and compiling the meta-schema's own validator was most
// of the CPU of a CLI's or an MCP tool's first validation.
const strict = createAjv({ coerceTypes: false, validateSchema: false });
// A pure function's memo keyed by the schema objects themselves, which live as long as the process.
const compiled = new WeakMap<TSchema, ValidateFunction>();

/**
 * A JSON value (MCP tool arguments, a CLI's fetch request) checked against a contract schema exactly as the HTTP API
 * checks a body: returns a copy with defaults filled in, or throws a ValidationError located at `location` (the HTTP
 * part the same field has: `body` or `querystring`).
 */
export function validateInput<T>(schema: TSchema, value: unknown, location: 'body' | 'querystring'): T {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = strict.compile(JSON.parse(JSON.stringify(schema)) as object);
    compiled.set(schema, validate);
  }
  const copy: unknown = structuredClone(value ?? {});
  if (!validate(copy)) throw new ValidationError(toValidationIssues(validate.errors ?? [], location));
  return copy as T;
}
