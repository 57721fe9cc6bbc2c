// Validates tool arguments with the same Ajv rules as the HTTP routes (defaults, coercion, unknown fields refused),
// so a bad argument gets the very 422 detail the HTTP API would give.
import type { ValidateFunction } from 'ajv';
import { ValidationError } from '../errors.js';
import { toValidationIssues } from '../http/validation.js';
import { createAjv } from '../http/validator.js';
import { TOOLS, toJsonSchema, type ToolDefinition, type ToolName } from './tools.js';

// The HTTP routes' Ajv (validator.ts): the same formats, defaults and strictness, with path-style coercion.
const ajv = createAjv({ coerceTypes: 'array' });

const validators = new Map<ToolName, ValidateFunction>(TOOLS.map((tool) => [tool.name, ajv.compile(toJsonSchema(tool.inputSchema))]));

/** The arguments with defaults filled in; throws ValidationError in FastAPI's shape. */
export function validateArguments<T>(tool: ToolDefinition, args: unknown): T {
  const copy: unknown = structuredClone(args ?? {});
  const validate = validators.get(tool.name)!;
  if (!validate(copy)) throw new ValidationError(toValidationIssues(validate.errors ?? [], tool.location));
  return copy as T;
}
