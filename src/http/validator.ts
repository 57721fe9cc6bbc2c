// Fastify's schema compiler: bodies checked strictly, path and query strings coerced to their declared types (they
// arrive as strings), both with the contract's Ajv rules.
import type { FastifySchemaCompiler } from 'fastify';
import { createAjv } from '../contract/validate.js';

export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = createAjv({ coerceTypes: false });
  const coercing = createAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema as object);
}
