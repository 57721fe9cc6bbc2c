// The layering drawn in docs/architecture.md, enforced on src/: no import up a layer, sideways without an arrow or
// past a module's reach (the surfaces reach only the operations, the contract and the kernel), every folder drawn, no
// runtime import cycle, no cycle between folders, no arrow that no import uses. And proof that each check can fail.
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { checkLayering, parseLayering, type Layering } from './helpers/import-graph.js';

const SRC = join(import.meta.dirname, '..', 'src');
const layering = parseLayering(readFileSync(join(import.meta.dirname, '..', 'docs', 'architecture.md'), 'utf8'));

/** A copy of src/ to break, removed after the test. */
function copyOfSrc(t: TestContext): string {
  const copy = mkdtempSync(join(tmpdir(), 'fetchdown-arch-'));
  t.after(() => rmSync(copy, { recursive: true, force: true }));
  cpSync(SRC, copy, { recursive: true });
  return copy;
}

function assertProblem(problems: string[], expected: RegExp | string): void {
  const found = typeof expected === 'string' ? problems.includes(expected) : problems.some((p) => expected.test(p));
  assert.ok(found, `expected ${String(expected)} among:\n${problems.join('\n')}`);
}

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

test('the surfaces reach the product only through the operations and the contract', () => {
  const reach = new Map(layering.reach);
  assert.deepEqual(reach.get('surfaces'), ['operations', 'contract', 'kernel']);
  // The CLI is a process entry (it starts the server and builds the pipeline) and a surface: below the entry layer it
  // reaches what a surface reaches, and the MCP surface it serves on stdio.
  assert.deepEqual(reach.get('cli.ts'), ['surfaces', 'operations', 'contract', 'kernel']);
});

test('the check refuses an import up a layer, a sideways import without an arrow, an undrawn folder and a cycle', (t) => {
  const copy = copyOfSrc(t);
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

test('the check refuses a surface that skips past the operations to a layer below them', (t) => {
  const copy = copyOfSrc(t);
  appendFileSync(join(copy, 'http', 'routes', 'health.ts'), "\nimport '../../services/readiness.js';\n");
  appendFileSync(join(copy, 'mcp', 'render.ts'), "\nimport type { Cursor } from '../services/cursor.js';\n");
  appendFileSync(join(copy, 'pages', 'layout.ts'), "\nimport '../store/types.js';\n");
  appendFileSync(join(copy, 'cli.ts'), "\nawait import('./billing/setup.js');\n");
  const problems = checkLayering(copy, layering);
  const surfaces = '(drawn: surfaces => operations contract kernel)';
  assertProblem(
    problems,
    `http/routes/health.ts imports services/readiness.ts: http may not skip to services ${surfaces}`,
  );
  assertProblem(problems, `mcp/render.ts imports services/cursor.ts: mcp may not skip to services ${surfaces}`);
  assertProblem(problems, `pages/layout.ts imports store/types.ts: pages may not skip to store ${surfaces}`);
  assertProblem(
    problems,
    'cli.ts imports billing/setup.ts: cli.ts may not skip to billing (drawn: cli.ts => surfaces operations contract kernel)',
  );
  // The operations are below the surfaces too, and may reach the services: the rule binds the surfaces alone.
  assert.deepEqual(
    problems.filter((p) => p.startsWith('operations/')),
    [],
  );
});

test('the check refuses a cycle between folders that no file-level cycle closes, drawn or imported', (t) => {
  // The drawing alone: an arrow back from discovery to pages closes pages -> discovery -> pages.
  const drawnBack: Layering = { ...layering, sideways: [...layering.sideways, ['discovery', 'pages']] };
  assertProblem(checkLayering(SRC, drawnBack), 'folder cycle: discovery -> pages -> discovery');

  // And made by imports along the arrows: each import is allowed, no file imports one that imports it back.
  const copy = copyOfSrc(t);
  appendFileSync(join(copy, 'discovery', 'product.ts'), "\nimport '../pages/html.js';\n");
  const problems = checkLayering(copy, drawnBack);
  assertProblem(problems, 'folder cycle: discovery -> pages -> discovery');
  assert.deepEqual(
    problems.filter((p) => p.includes('may not') || p.startsWith('runtime import cycle') || p.includes('no import')),
    [],
  );
});

test('the check refuses an arrow that no import uses', (t) => {
  const copy = copyOfSrc(t);
  // ratelimit -> cache is drawn for the Redis limiter's connection: without that import no module uses the arrow.
  const redis = join(copy, 'ratelimit', 'redis.ts');
  const source = readFileSync(redis, 'utf8');
  const withoutCache = source.replace(/^import .* from '\.\.\/cache\/.*';\n/gm, '');
  assert.notEqual(withoutCache, source, 'src/ratelimit/redis.ts imports from cache/');
  writeFileSync(redis, withoutCache);
  assertProblem(checkLayering(copy, layering), 'docs/architecture.md draws ratelimit -> cache, which no import uses');
});
