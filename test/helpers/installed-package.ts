// The npm package as a user installs it, for the packaging test and bench:startup: `npm pack` (after the build its
// prepare script runs), then the tarball unpacked into an empty project's node_modules/fetchdown, offline: the
// production dependencies are linked from this checkout's node_modules (a registry install would compile
// better-sqlite3 again); dev dependencies (tsx, TypeScript) are not, so the package must run without them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
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

export function packAndInstall(workDir: string): InstalledPackage {
  // The build prepare would run, first: a lifecycle script's output on stdout would spoil pack's JSON.
  buildIfStale();
  const output = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', workDir], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  const packed = (JSON.parse(output) as { filename: string; files: { path: string }[] }[])[0]!;
  const tarball = join(workDir, packed.filename);
  return { tarball, files: packed.files.map((f) => f.path), ...installTarball(tarball, join(workDir, 'project')) };
}

/** A package tarball (this one, or another build's for bench:startup) installed into `project` as above. */
export function installTarball(tarball: string, project: string): { project: string; bin: string } {
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, 'fetchdown'), { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', join(modules, 'fetchdown'), '--strip-components=1']);
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path)?.[1];
    if (!name || entry.dev || !existsSync(join(REPO_ROOT, path))) continue; // not installed: another platform's build
    mkdirSync(join(modules, name, '..'), { recursive: true });
    symlinkSync(join(REPO_ROOT, path), join(modules, name), 'dir');
  }
  mkdirSync(join(modules, '.bin'));
  symlinkSync('../fetchdown/bin/fetchdown.mjs', join(modules, '.bin', 'fetchdown'));
  return { project, bin: join(modules, '.bin', 'fetchdown') };
}
