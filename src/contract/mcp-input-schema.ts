// A tool's input schema as MCP clients are sent it: built from the HTTP API's own TypeBox schema (same fields, types,
// enums, defaults and numeric limits), only shorter, because every client puts the whole tool list in front of the
// model on every turn. Tool calls are still validated against the full schema, so errors are the HTTP API's.
import type { TSchema } from '@sinclair/typebox';
import { withOptionalDefaults } from './fetch.js';

type Schema = Record<string, unknown>;

/** A TypeBox schema as plain JSON Schema (TypeBox keeps its bookkeeping in symbol keys). */
export function toJsonSchema(schema: TSchema): Schema {
  return JSON.parse(JSON.stringify(schema)) as Schema;
}

/** The input schema of a tool as tools/list sends it. */
export function toMcpInputSchema(schema: TSchema): Schema {
  return compact(withSingleTypes(withOptionalDefaults(toJsonSchema(schema))), 0);
}

/**
 * What is kept at each depth: the tool's object (its fields, which are required); each field by what a model builds
 * an argument from (type, values, default) and the numeric limits it should stay within; below the fields, an array's
 * items and an object's parts only by type. The rest goes, measured against issue 36's 1,500 tokens for the whole
 * list (bench/mcp-tools.ts): the fields' descriptions were a third of it (the tool's description names what a field's
 * name does not say, and /openapi.json keeps them), an object field's parts (an action's steps, a webhook's) a tenth,
 * and lengths of strings little but noise (a URL or a query is never near them; a call past one still gets the 422).
 */
const KEPT_AT_DEPTH: ReadonlySet<string>[] = [
  new Set(['type', 'required', 'properties']),
  new Set(['type', 'enum', 'default', 'minimum', 'maximum', 'maxItems', 'items']),
  new Set(['type', 'enum']),
];

function compact(schema: Schema, depth: number): Schema {
  const keep = KEPT_AT_DEPTH[depth]!;
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (!keep.has(keyword)) continue;
    if (keyword === 'properties')
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([name, field]) => [name, compact(field, depth + 1)]),
      );
    else if (keyword === 'items') out.items = compact(value as Schema, depth + 1);
    // An optional flag is false when left out: saying so is noise.
    else if (!(keyword === 'default' && value === false)) out[keyword] = value;
  }
  return out;
}

/**
 * An input schema as MCP clients read it: a field the HTTP API also takes null for (`max_tokens`, declared
 * `["integer", "null"]` with default null) is declared with its one type, optional, without the null default. Clients
 * build arguments from `type` alone: the MCP Inspector CLI up to 0.16.5 made a number of `--tool-arg max_tokens=100`
 * only for `"type": "integer"` and sent the string "100" otherwise, and form-building clients do alike. Tool calls are
 * still validated against the HTTP API's schema, so a client that sends null for "not set" is not refused. A field
 * the HTTP API takes as a string or a number (`wait_for`: a selector or milliseconds) is declared a string, whose
 * digits are the number (contract/interaction.ts reads them so).
 */
function withSingleTypes(schema: Schema): Schema {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (!properties) return schema;
  const single = ([name, property]: [string, Record<string, unknown>]) => {
    const { type, default: fallback, ...rest } = property;
    if (Array.isArray(type) && type.includes('string') && !type.includes('null')) {
      const { minimum: _min, maximum: _max, ...stringOnly } = rest;
      return [name, { type: 'string', ...stringOnly }];
    }
    if (!Array.isArray(type) || !type.includes('null')) return [name, property];
    const types = (type as unknown[]).filter((t) => t !== 'null');
    return [
      name,
      { type: types.length === 1 ? types[0] : types, ...rest, ...(fallback != null && { default: fallback }) },
    ];
  };
  return { ...schema, properties: Object.fromEntries(Object.entries(properties).map(single)) };
}
