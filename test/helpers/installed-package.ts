// The npm package as a user installs it, for the packaging tests and bench:startup: staged as the release workflow
// publishes it (scripts/stage-package.mjs: no scripts, no dev dependencies, the production tree as
// npm-shrinkwrap.json), packed, unpacked into an empty project's node_modules/fetchdown, and its dependencies installed
// there from the shrinkwrap by npm itself, offline from npm's cache (which the checkout's `npm ci` filled), with
// --engine-strict, so a package whose `engines` refuse this Node fails the install. npm places a registry package's
// shrinkwrapped tree the same way, under node_modules/fetchdown/node_modules. Install scripts do not run: the one
// that would, better-sqlite3's compile, takes minutes, so its addon is copied from this checkout's build of the same
// version instead.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildIfStale } from './build.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

export interface InstalledPackage {
  tarball: string;
  /** The paths in the tarball, as `npm pack` lists them. */
  files: string[];
  /** The project the package is installed into. */
  project: string;
  /** node_modules/.bin/fetchdown in that project. */
  bin: string;
}

/**
 * Stages, packs and installs this checkout. `linkDependencies` (bench:startup, beside another build's tarball)
 * links the checkout's production dependencies instead of installing them, as installTarball does.
 */
export function packAndInstall(workDir: string, { linkDependencies = false } = {}): InstalledPackage {
  buildIfStale();
  const stage = join(workDir, 'stage');
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'stage-package.mjs'), stage], { stdio: 'ignore' });
  const output = execFileSync('npm', ['pack', '--json', '--pack-destination', workDir, stage], {
    cwd: workDir,
    encoding: 'utf8',
  });
  const packed = (JSON.parse(output) as { filename: string; files: { path: string }[] }[])[0]!;
  const tarball = join(workDir, packed.filename);
  const project = join(workDir, 'project');
  const files = packed.files.map((f) => f.path);
  if (linkDependencies) return { tarball, files, ...installTarball(tarball, project) };
  installDependencies(unpack(tarball, project));
  return { tarball, files, project, bin: linkBin(project) };
}

/**
 * Another build's tarball (bench:startup's baseline) unpacked into `project`, with this checkout's production
 * dependencies linked, offline: that build may have no shrinkwrap to install from.
 */
export function installTarball(tarball: string, project: string): { project: string; bin: string } {
  unpack(tarball, project);
  const modules = join(project, 'node_modules');
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path)?.[1];
    if (!name || entry.dev || !existsSync(join(REPO_ROOT, path))) continue; // not installed: another platform's build
    mkdirSync(join(modules, name, '..'), { recursive: true });
    symlinkSync(join(REPO_ROOT, path), join(modules, name), 'dir');
  }
  return { project, bin: linkBin(project) };
}

/** The tarball's contents in project/node_modules/fetchdown. */
function unpack(tarball: string, project: string): string {
  const packageDir = join(project, 'node_modules', 'fetchdown');
  mkdirSync(packageDir, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
  return packageDir;
}

/** `npm ci` in the unpacked package: exactly its npm-shrinkwrap.json, production only, from npm's cache. */
function installDependencies(packageDir: string): void {
  const args = ['ci', '--offline', '--engine-strict', '--ignore-scripts', '--omit=dev', '--no-audit', '--no-fund'];
  try {
    execFileSync('npm', args, { cwd: packageDir, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const { stderr = '' } = error as { stderr?: string };
    const hint = /ENOTCACHED/.test(stderr) ? ' (npm has not cached a package of the lock: run `npm ci` first)' : '';
    throw new Error(`npm ${args.join(' ')} failed in the unpacked package${hint}:\n${stderr}`, { cause: error });
  }
  // The compiled addon of the version the checkout installed from the same lock; the shrinkwrap pins that version.
  const addon = join('better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  const installed = join(packageDir, 'node_modules', addon);
  const version = (dir: string) =>
    (JSON.parse(readFileSync(join(dir, 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }).version;
  const ours = join(REPO_ROOT, 'node_modules');
  if (version(ours) !== version(join(packageDir, 'node_modules'))) {
    throw new Error('the shrinkwrap and the checkout have different better-sqlite3 versions: run `npm ci`');
  }
  mkdirSync(join(installed, '..'), { recursive: true });
  copyFileSync(join(ours, addon), installed);
}

/** node_modules/.bin/fetchdown, as npm links a dependency's bin. */
function linkBin(project: string): string {
  const bin = join(project, 'node_modules', '.bin', 'fetchdown');
  mkdirSync(join(bin, '..'), { recursive: true });
  symlinkSync('../fetchdown/bin/fetchdown.mjs', bin);
  return bin;
}
