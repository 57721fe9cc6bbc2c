// Request validation: JSON bodies are checked strictly (42 is not a URL, "5" is not a number), while path and query
// values, which arrive as strings, are coerced to their declared types.
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * `format: uri` as browsers and pydantic's HttpUrl read URLs (WHATWG): ajv-formats' RFC 3986 check refuses what people
 * paste every day, such as `https://de.wikipedia.org/wiki/Bücher`, IDN hosts, or `|` and `[]` in a query. Control
 * characters and spaces are still refused: a URL never needs them raw.
 */
export function isUri(value: string): boolean {
  if (/[\u0000-\u0020\u007f]/.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

export function createAjv(options: Options): Ajv {
  // Unknown body fields are refused (422 extra_forbidden) rather than silently dropped, so a typo never goes unnoticed.
  const ajv = new Ajv({ removeAdditional: false, useDefaults: true, allErrors: true, strict: false, ...options });
  addFormats.default(ajv);
  ajv.addFormat('uri', isUri);
  return ajv;
}

export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = createAjv({ coerceTypes: false });
  const coercing = createAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema as object);
}
