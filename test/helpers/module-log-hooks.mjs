// The module hooks of module-log.mjs (run on Node's loader thread): each resolved file URL, appended as it resolves.
import { appendFileSync } from 'node:fs';

let log;

export function initialize(data) {
  log = data.log;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith('file:')) appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
