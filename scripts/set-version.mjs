// npm's `version` script (`npm version 1.2.3`, after it set package.json and the lock): the same version where the
// repository names it too, for the commit npm makes next. server.json (the MCP registry entry) names it for the server
// and for its npm package, and the release checks both; the README and docs/operations.md name the tarball
// `npm run package` writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** Rewrites `path` textually (server.json's hand-made layout stays), failing if `pattern` matched nothing. */
function replaceIn(path, pattern, replacement) {
  const before = readFileSync(join(ROOT, path), 'utf8');
  if (!pattern.test(before)) throw new Error(`${path}: no ${pattern} to set the version in`);
  writeFileSync(join(ROOT, path), before.replace(pattern, replacement));
}

replaceIn('server.json', /("version": )"[^"]*"/g, `$1"${version}"`);
const server = JSON.parse(readFileSync(join(ROOT, 'server.json'), 'utf8'));
if (server.version !== version || server.packages.some((p) => p.version !== version)) {
  throw new Error('server.json: a version is not where expected');
}
for (const doc of ['README.md', 'docs/operations.md']) {
  replaceIn(doc, /fetchdown-\d+\.\d+\.\d+(?:-[\w.]+)?\.tgz/g, `fetchdown-${version}.tgz`);
}
