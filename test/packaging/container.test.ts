// Dockerfile and compose.yaml, checked by structure (Docker cannot run on the test machine, and no Dockerfile linter
// installs from the registries): the image builds with the commands the tests run, ships no dev dependencies or
// secrets, runs as a non-root user with a health check and a signal-forwarding init; compose has the production shape.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/mcp-client.js';

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined and comments dropped, split into build stages. */
function readStages(): Instruction[][] {
  const text = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const stages: Instruction[][] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!match || line.trimStart().startsWith('#')) continue;
    const instruction = { keyword: match[1]!, args: match[2]!.replace(/\s+/g, ' ').trim() };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)!.push(instruction);
  }
  return stages;
}

const stages = readStages();
const final = stages.at(-1)!;
const all = stages.flat();
const args = (keyword: string, stage = final) => stage.filter((i) => i.keyword === keyword).map((i) => i.args);
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

test('the image is multi-stage on Debian slim with Node 20, built with npm ci as the tests are', () => {
  assert.ok(stages.length >= 2, 'a build stage and a runtime stage');
  for (const stage of stages) assert.match(stage[0]!.args, /^node:20-[a-z]+-slim\b/);
  const build = args('RUN', stages[0]).join(' ');
  assert.match(build, /\bnpm ci\b/, 'the lock file as npm ci reads it (its prepare script is npm run build)');
  assert.match(pkg.scripts.prepare!, /npm run build/);
  // prepare applies patches/ (patch-package) before it builds, so the build stage needs them.
  assert.match(pkg.scripts.prepare!, /^patch-package && /);
  assert.match(args('COPY', stages[0]).join(' '), /\bpatches\b/, 'the patches that prepare applies');
  assert.match(build, /npm prune --omit=dev/, 'no dev dependencies reach the image');
  assert.ok(
    args('COPY').every((from) => from.startsWith('--from=build ')),
    'the runtime stage copies only from the build stage',
  );
});

test('the runtime stage has Debian Chromium, a non-root user, a health check and tini in front of npm start', () => {
  assert.match(args('RUN').join(' '), /apt-get install .*\bchromium\b.*\btini\b/);
  const user = args('USER');
  assert.equal(user.length, 1);
  assert.notEqual(user[0], 'root');
  assert.ok(
    final.findIndex((i) => i.keyword === 'USER') < final.findIndex((i) => i.keyword === 'CMD'),
    'USER before CMD',
  );
  assert.match(args('HEALTHCHECK')[0]!, /CMD .*\/health\b/);
  assert.deepEqual(JSON.parse(args('ENTRYPOINT')[0]!), ['/usr/bin/tini', '--']);
  assert.equal(JSON.parse(args('CMD')[0]!).join(' '), pkg.scripts.start, 'the start command the tests run');
  assert.match(args('ENV').join(' '), /HOST=0\.0\.0\.0/);
});

test('no secret is baked into the image, and the build context leaves local state out', () => {
  for (const { keyword, args: value } of all.filter((i) => i.keyword === 'ENV' || i.keyword === 'ARG')) {
    assert.doesNotMatch(value, /(KEY|TOKEN|PASSWORD|SECRET|DATABASE_URL|SMTP_URL)\b/i, `${keyword} ${value}`);
  }
  const ignored = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
  for (const path of ['node_modules', 'dist', 'data', '.git']) assert.ok(ignored.includes(path), path);
});

interface Service {
  image?: string;
  build?: string;
  deploy?: { replicas?: number };
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
  networks?: Record<string, { ipv4_address?: string }>;
}
const compose = parse(readFileSync(join(REPO_ROOT, 'compose.yaml'), 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
  networks?: { default?: { ipam?: { config?: { subnet?: string; ip_range?: string }[] } } };
};

test(
  'compose runs Postgres, Redis, two API replicas and a load balancer, each started once its ' +
    'dependencies are healthy',
  () => {
    const { postgres, redis, api, lb } = compose.services;
    assert.match(postgres!.image!, /^postgres:/);
    assert.match(redis!.image!, /^redis:/);
    assert.ok(postgres!.healthcheck && redis!.healthcheck, 'the databases report their health');
    assert.equal(api!.build, '.');
    assert.equal(api!.deploy?.replicas, 2);
    assert.deepEqual(api!.depends_on, {
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    assert.deepEqual(
      lb!.depends_on,
      { api: { condition: 'service_healthy' } },
      'the image HEALTHCHECK gates the load balancer',
    );
    assert.match(api!.environment!.DATABASE_URL!, /^postgres:\/\/.*@postgres:5432\//);
    assert.equal(api!.environment!.CACHE_URL, 'redis://redis:6379');
    assert.ok(!Object.values(api!.environment!).some((v) => /^fd_live_|^sk_/.test(v)), 'no key written into compose');
    assert.match(
      postgres!.environment!.POSTGRES_PASSWORD!,
      /^\$\{POSTGRES_PASSWORD:\?/,
      'the password comes from the environment',
    );
  },
);

test('the API trusts X-Forwarded-For from the load balancer only, at an address no other container can get', () => {
  const balancer = compose.services.lb!.networks?.default?.ipv4_address;
  assert.ok(balancer, 'the load balancer has a fixed address');
  assert.equal(compose.services.api!.environment!.TRUST_PROXY, balancer);
  const [network] = compose.networks?.default?.ipam?.config ?? [];
  const [prefix, last] = [balancer.split('.').slice(0, 3).join('.'), Number(balancer.split('.')[3])];
  assert.equal(network?.subnet, `${prefix}.0/24`);
  assert.equal(network?.ip_range, `${prefix}.0/25`, 'dynamic addresses from the lower half');
  assert.ok(last >= 128 && last < 255, `${balancer} is outside the dynamic range`);
});

test('compose keeps its state in named volumes and the load balancer config exists and points at the API', () => {
  const named = Object.keys(compose.volumes);
  for (const service of ['postgres', 'redis', 'api']) {
    const source = compose.services[service]!.volumes![0]!.split(':')[0]!;
    assert.ok(named.includes(source), `${service} uses the named volume ${source}`);
  }
  const mount = compose.services.lb!.volumes![0]!.split(':')[0]!;
  const conf = join(REPO_ROOT, mount);
  assert.ok(existsSync(conf), mount);
  assert.match(readFileSync(conf, 'utf8'), /server api:8080;/);
});
