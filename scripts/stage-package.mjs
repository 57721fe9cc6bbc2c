// The npm package as it is published, staged from a built checkout into a directory of its own (default dist-npm/):
// `npm run package` packs it, the release workflow publishes it, the packaging tests install it. The checkout's
// package.json is for developing (its prepare script applies patches/ and builds, which needs the dev dependencies);
// the staged one keeps what a user's npm reads, so an install offers no script of ours to run or approve.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

/** package.json fields a user's npm and the registry read; scripts, devDependencies, overrides, allowScripts stay. */
const PUBLISHED_FIELDS = [
  'name',
  'version',
  'description',
  'mcpName',
  'keywords',
  'license',
  'repository',
  'homepage',
  'bugs',
  'type',
  'bin',
  'files',
  'engines',
  'dependencies',
];

const readJson = (path) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));
const writeJson = (path, value) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);

/**
 * The lock file less what only development needs, as npm-shrinkwrap.json: a user's install from the registry gets
 * exactly the production tree the tests ran on. npm prunes the lock itself against the staged package.json (dev
 * dependencies, and optional peers only they install), from the lock alone: nothing is fetched.
 */
function writeProductionShrinkwrap(dir) {
  cpSync(join(ROOT, 'package-lock.json'), join(dir, 'package-lock.json'));
  const args = ['install', '--package-lock-only', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'];
  execFileSync('npm', args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  renameSync(join(dir, 'package-lock.json'), join(dir, 'npm-shrinkwrap.json'));
}

function stagePackage(dir) {
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) throw new Error('no dist/: run `npm run build` first');
  const manifest = readJson('package.json');
  if (readJson('package-lock.json').version !== manifest.version) throw new Error('package-lock.json is out of date');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const published = Object.fromEntries(PUBLISHED_FIELDS.map((field) => [field, manifest[field]]));
  // npm packs a shrinkwrap only when `files` names it.
  writeJson(join(dir, 'package.json'), { ...published, files: [...published.files, 'npm-shrinkwrap.json'] });
  writeProductionShrinkwrap(dir);
  for (const path of ['bin', 'dist', 'server.json', 'README.md', 'LICENSE']) {
    cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  }
  // The build's record of its inputs, for the start-up test; package.json `files` leaves it out too.
  rmSync(join(dir, 'dist', 'meta.json'), { force: true });
}

const dir = resolve(process.argv[2] ?? join(ROOT, 'dist-npm'));
stagePackage(dir);
process.stdout.write(`${dir}\n`);
