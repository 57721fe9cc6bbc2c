// The layering drawn in docs/architecture.md, enforced on src/: no import up a layer or sideways without an arrow,
// every folder drawn, no runtime import cycle. And proof that the check can fail.
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkLayering, parseLayering } from './helpers/import-graph.js';

const SRC = join(import.meta.dirname, '..', 'src');
const layering = parseLayering(readFileSync(join(import.meta.dirname, '..', 'docs', 'architecture.md'), 'utf8'));

test('src/ follows the layers of docs/architecture.md, with no runtime import cycle', () => {
  assert.deepEqual(checkLayering(SRC, layering), []);
});

test('nothing outside the HTTP surface imports src/http/', () => {
  const surface = new Set(['http', 'pages', 'app.ts']); // the web pages are served by the HTTP surface's app
  const http = layering.layers.find((layer) => layer.modules.includes('http'));
  assert.ok(http, 'the drawing has the http surface');
  const offenders = layering.sideways.filter(([from, to]) => to === 'http' && !surface.has(from));
  assert.deepEqual(offenders, []);
});

test('the check refuses an import up a layer, a sideways import without an arrow, an undrawn folder and a cycle', (t) => {
  const copy = mkdtempSync(join(tmpdir(), 'fetchdown-arch-'));
  t.after(() => rmSync(copy, { recursive: true, force: true }));
  cpSync(SRC, copy, { recursive: true });
  appendFileSync(join(copy, 'errors.ts'), "\nimport '../http/auth.js';\n".replace('../', './'));
  appendFileSync(join(copy, 'mcp', 'server.ts'), "\nimport './../discovery/spec.js';\n");
  cpSync(join(copy, 'util'), join(copy, 'stray'), { recursive: true });
  appendFileSync(join(copy, 'util', 'limiter.ts'), "\nimport './single-flight.js';\n");
  appendFileSync(join(copy, 'util', 'single-flight.ts'), "\nimport './limiter.js';\n");
  const problems = checkLayering(copy, layering);
  assert.ok(
    problems.some((p) => /^errors\.ts imports http\/auth\.ts: errors\.ts may not import http$/.test(p)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => /^mcp\/server\.ts imports discovery\/spec\.ts: mcp may not import discovery$/.test(p)),
    problems.join('\n'),
  );
  assert.ok(problems.includes('src/stray exists but is not drawn in docs/architecture.md'), problems.join('\n'));
  assert.ok(
    problems.some((p) =>
      /^runtime import cycle: util\/(limiter|single-flight)\.ts -> util\/(limiter|single-flight)\.ts$/.test(p),
    ),
    problems.join('\n'),
  );
});
