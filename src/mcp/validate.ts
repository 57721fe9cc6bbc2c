// Validates tool arguments with the same Ajv rules as the HTTP routes (defaults, coercion, unknown fields refused),
// so a bad argument gets the very 422 detail the HTTP API would give.
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ValidationError } from '../errors.js';
import { toValidationIssues } from '../http/validation.js';
import { TOOLS, toJsonSchema, type ToolDefinition, type ToolName } from './tools.js';

// The options app.ts gives Fastify's Ajv; strict is off because the schemas carry annotations such as `examples`.
const ajv = new Ajv.default({ removeAdditional: false, allErrors: true, coerceTypes: 'array', useDefaults: true, strict: false });
addFormats.default(ajv);

const validators = new Map<ToolName, ValidateFunction>(TOOLS.map((tool) => [tool.name, ajv.compile(toJsonSchema(tool.inputSchema))]));

/** The arguments with defaults filled in; throws ValidationError in FastAPI's shape. */
export function validateArguments<T>(tool: ToolDefinition, args: unknown): T {
  const copy: unknown = structuredClone(args ?? {});
  const validate = validators.get(tool.name)!;
  if (!validate(copy)) throw new ValidationError(toValidationIssues(validate.errors ?? [], tool.location));
  return copy as T;
}
