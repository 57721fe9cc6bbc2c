// Translates Ajv schema errors into FastAPI's 422 shape ({loc, msg, type}), located where the caller put the value.
import type { ErrorObject } from 'ajv';
import type { ValidationIssue } from '../errors.js';
import { URL_SCHEME_PATTERN } from './fetch.js';

const LOCATION: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

const TYPE_NAMES: Record<string, [string, string]> = {
  integer: ['int_type', 'Input should be a valid integer'],
  number: ['float_type', 'Input should be a valid number'],
  string: ['string_type', 'Input should be a valid string'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  array: ['list_type', 'Input should be a valid list'],
  object: ['model_attributes_type', 'Input should be a valid dictionary or object to extract fields from'],
};

function quoteList(values: unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : (quoted[0] ?? '');
}

function toIssue(error: ErrorObject, context: string): ValidationIssue {
  const loc: (string | number)[] = [LOCATION[context] ?? context];
  for (const part of (error.instancePath ?? '').split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    loc.push(/^\d+$/.test(key) ? Number(key) : key);
  }
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { loc: [...loc, String(params.missingProperty)], msg: 'Field required', type: 'missing' };
    case 'additionalProperties':
      return {
        loc: [...loc, String(params.additionalProperty)],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      };
    case 'type': {
      const expected = String(params.type).split(',')[0] ?? 'string';
      const [type, msg] = TYPE_NAMES[expected] ?? ['type_error', `Input should be of type ${expected}`];
      return { loc, msg, type };
    }
    case 'minLength':
      return {
        loc,
        msg: `String should have at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'}`,
        type: 'string_too_short',
      };
    case 'maxLength':
      return { loc, msg: `String should have at most ${String(params.limit)} characters`, type: 'string_too_long' };
    case 'minimum':
      return {
        loc,
        msg: `Input should be greater than or equal to ${String(params.limit)}`,
        type: 'greater_than_equal',
      };
    case 'maximum':
      return { loc, msg: `Input should be less than or equal to ${String(params.limit)}`, type: 'less_than_equal' };
    case 'minItems':
      return {
        loc,
        msg: `List should have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'} after validation`,
        type: 'too_short',
      };
    case 'maxItems':
      return { loc, msg: `List should have at most ${String(params.limit)} items after validation`, type: 'too_long' };
    case 'enum':
      return { loc, msg: `Input should be ${quoteList(params.allowedValues as unknown[])}`, type: 'enum' };
    case 'format':
      if (params.format === 'email') return { loc, msg: 'value is not a valid email address', type: 'value_error' };
      return { loc, msg: 'Input should be a valid URL', type: 'url_parsing' };
    case 'pattern':
      if (params.pattern === URL_SCHEME_PATTERN)
        return { loc, msg: "URL scheme should be 'http' or 'https'", type: 'url_scheme' };
      return { loc, msg: `String should match pattern '${String(params.pattern)}'`, type: 'string_pattern_mismatch' };
    default:
      return { loc, msg: error.message ?? 'Invalid value', type: 'value_error' };
  }
}

// One issue per location, as FastAPI reports it: "not a url" breaks both the format and the scheme pattern, and the
// more basic fault is the one worth reading.
const PRECEDENCE = [
  'missing',
  'extra_forbidden',
  'model_attributes_type',
  'int_type',
  'string_type',
  'bool_type',
  'list_type',
  'string_too_short',
  'string_too_long',
  'url_parsing',
  'url_scheme',
];
const rank = (type: string) => (PRECEDENCE.includes(type) ? PRECEDENCE.indexOf(type) : PRECEDENCE.length);

export function toValidationIssues(errors: ErrorObject[], context: string): ValidationIssue[] {
  const byLoc = new Map<string, ValidationIssue>();
  for (const issue of errors.map((e) => toIssue(e, context))) {
    const key = JSON.stringify(issue.loc);
    const seen = byLoc.get(key);
    if (!seen || rank(issue.type) < rank(seen.type)) byLoc.set(key, issue);
  }
  return [...byLoc.values()];
}
