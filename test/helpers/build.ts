// dist/ for the tests that run the build as production does (the topology, the installed package). `npm test` builds
// first (pretest), so these find it fresh and never rebuild under the feet of tests running beside them: the build
// starts by emptying dist/.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** Newest modification time of the files under `dir`. */
function newest(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((latest, entry) => Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/** `npm run build` unless dist/ is newer than every source file and the build script. */
export function buildIfStale(): void {
  const main = join(REPO_ROOT, 'dist', 'main.js');
  const sources = Math.max(newest(join(REPO_ROOT, 'src')), newest(join(REPO_ROOT, 'scripts')));
  if (existsSync(main) && statSync(main).mtimeMs > sources) return;
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
