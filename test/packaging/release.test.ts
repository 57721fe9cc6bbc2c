// The release workflow (.github/workflows/release.yml), checked by structure since GitHub Actions cannot run here: a
// version tag runs the tests as .ci/run does, then publishes the staged npm package with provenance and pushes the
// multi-arch image from the Dockerfile. And the one step of it that can run here: `npm publish --dry-run` of the
// package `npm run package` stages, offline, against a registry that does not answer.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { buildIfStale } from '../helpers/build.js';
import { REPO_ROOT } from '../helpers/mcp-client.js';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | boolean>;
  env?: Record<string, string>;
  'working-directory'?: string;
}
interface Job {
  needs?: string | string[];
  'runs-on': string;
  container?: string;
  services?: Record<string, { image: string; env?: Record<string, string> }>;
  env?: Record<string, string>;
  permissions?: Record<string, string>;
  steps: Step[];
}
const workflow = parse(readFileSync(join(REPO_ROOT, '.github', 'workflows', 'release.yml'), 'utf8')) as {
  on: { push: { tags: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};
const { test: tests, npm, image } = workflow.jobs;
const runs = (job: Job) => job.steps.flatMap((step) => (step.run ? [step.run] : []));
const action = (job: Job, name: string) => job.steps.find((step) => step.uses?.split('@')[0] === name);
const needs = (job: Job) => [job.needs ?? []].flat();

test('a version tag starts it, and nothing may write but the jobs that publish', () => {
  assert.deepEqual(workflow.on.push.tags, ['v*.*.*']);
  assert.deepEqual(Object.keys(workflow).sort(), ['jobs', 'name', 'on', 'permissions']);
  assert.deepEqual(workflow.permissions, { contents: 'read' });
  assert.deepEqual(Object.keys(workflow.jobs).sort(), ['image', 'npm', 'test']);
});

test('the tests run first, as CI runs them: .ci/run on Debian with Node 20, Redis, Postgres and ../shared', () => {
  assert.ok(tests);
  assert.match(tests.container ?? '', /^node:20-bookworm\b/, 'the Dockerfile’s Debian and Node');
  assert.match(tests.services?.postgres?.image ?? '', /^postgres:/);
  assert.match(tests.services?.redis?.image ?? '', /^redis:/);
  assert.equal(tests.env?.TEST_REDIS_URL, 'redis://redis:6379');
  assert.match(tests.env?.TEST_DATABASE_URL ?? '', /^postgres:\/\/postgres@postgres:5432\//);
  const checkouts = tests.steps.filter((step) => step.uses?.startsWith('actions/checkout@'));
  assert.deepEqual(
    checkouts.map((step) => step.with?.path),
    ['fetchdown', 'shared'],
    'the checkout, and ../shared beside it',
  );
  const last = tests.steps.at(-1)!;
  assert.equal(last.run, '.ci/run');
  assert.equal(last['working-directory'], 'fetchdown');
  // .ci/run ends with the README's test command.
  const ci = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8')
    .trim()
    .split('\n');
  assert.equal(ci.at(-1), 'npm test');
  assert.match(ci.join('\n'), /\nnpm ci --no-audit --no-fund\n/);
  assert.ok(
    runs(tests).some((run) => run.includes('"$GITHUB_REF_NAME" = "v$version"')),
    'the tag names the version in package.json',
  );
});

test('the npm job publishes the staged package with provenance, once the tests passed', () => {
  assert.ok(npm);
  assert.deepEqual(needs(npm), ['test']);
  assert.equal(npm.permissions?.['id-token'], 'write', 'provenance signs with the workflow’s identity');
  const node = action(npm, 'actions/setup-node');
  assert.equal(node?.with?.['node-version'], 20);
  assert.equal(node?.with?.['registry-url'], 'https://registry.npmjs.org');
  const commands = runs(npm);
  const at = (pattern: RegExp) => commands.findIndex((run) => pattern.test(run));
  assert.ok(at(/^npm ci\b/) >= 0 && at(/^npm ci\b/) < at(/^npm run package$/), 'installed, then staged');
  const publish = npm.steps.find((step) => step.run?.startsWith('npm publish'));
  assert.equal(publish?.run, 'npm publish --provenance --access public ./dist-npm');
  assert.ok(at(/^npm run package$/) < at(/^npm publish /));
  assert.equal(publish.env?.NODE_AUTH_TOKEN, '${{ secrets.NPM_TOKEN }}');
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, any>;
  assert.match(pkg.scripts.package, /node scripts\/stage-package\.mjs && npm pack \.\/dist-npm$/);
  assert.equal(pkg.private, true, 'npm publish in the checkout would ship the development manifest: refused');
  // `npm version x.y.z` is the maintainer's one step: the tag it makes must pass the version check above.
  assert.match(pkg.scripts.version, /^node scripts\/set-version\.mjs && git add server\.json /);
});

test('the image job builds the Dockerfile for amd64 and arm64 with QEMU and Buildx, and pushes it', () => {
  assert.ok(image);
  assert.deepEqual(needs(image), ['test']);
  assert.equal(image.permissions?.packages, 'write');
  const names = image.steps.map((step) => step.uses?.split('@')[0]);
  const order = [
    'actions/checkout',
    'docker/setup-qemu-action',
    'docker/setup-buildx-action',
    'docker/login-action',
    'docker/metadata-action',
    'docker/build-push-action',
  ];
  assert.deepEqual(names, order);
  const build = action(image, 'docker/build-push-action')!.with!;
  assert.equal(build.file, 'Dockerfile');
  assert.equal(build.context, '.');
  assert.deepEqual(String(build.platforms).split(','), ['linux/amd64', 'linux/arm64']);
  assert.equal(build.push, true);
  assert.equal(build.tags, '${{ steps.meta.outputs.tags }}');
});

interface PublishSummary {
  id: string;
  files: { path: string }[];
}
const work = mkdtempSync(join(tmpdir(), 'fetchdown-release-'));
after(() => rmSync(work, { recursive: true, force: true }));

test('npm publish --dry-run accepts the staged package, offline', () => {
  buildIfStale();
  const stage = join(work, 'dist-npm');
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'stage-package.mjs'), stage], { stdio: 'ignore' });
  // Port 9 (discard) has no registry: with --offline npm does not try, and the dry run needs none.
  const args = ['publish', '--dry-run', '--json', '--offline', '--registry', 'http://127.0.0.1:9/', stage];
  const output = execFileSync('npm', args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  // npm 11 keys the summary by package name; npm 10 prints it bare.
  const published = JSON.parse(output) as PublishSummary | Record<string, PublishSummary>;
  const entry = ('id' in published ? published : Object.values(published)[0]) as PublishSummary;
  assert.equal(entry.id, `fetchdown@${JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version}`);
  const files = entry.files.map((file) => file.path);
  for (const file of ['package.json', 'npm-shrinkwrap.json', 'bin/fetchdown.mjs', 'dist/cli.js', 'README.md']) {
    assert.ok(files.includes(file), file);
  }
});
