// `npm run build`: dist/ as esbuild bundles of the entry points (dist/main.js for `npm start`, dist/cli.js for the
// bin, dist/conversion-worker.js for the extraction threads) with the code they share, and what they load on demand,
// split into chunks. One file per chunk instead of a module per source file and dependency is what makes
// `fetchdown mcp` and the CLI start fast: Node 20 spent most of
// their start-up resolving, reading and compiling ~1,000 small modules (docs/benchmarks-log.md, "Start-up from the
// installed package"). Type checking is `npm run typecheck`; the bundle only strips types.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

/**
 * Left to node_modules: native code (better-sqlite3's addon must match the platform it was installed on), and packages
 * that find their own files at run time (playwright-core its browser registry and drivers, pdf.js its worker and
 * fonts, tesseract.js its worker script and WebAssembly, its English model its data file). All load through `import`
 * or `require`, so the bundles only name them.
 */
const EXTERNAL = ['better-sqlite3', 'playwright-core', 'pdfjs-dist', 'tesseract.js', '@tesseract.js-data/eng'];

rmSync('dist', { recursive: true, force: true });
const { metafile } = await build({
  // Named, so that each lands in dist/ itself: the extraction threads' module is found beside the code that starts
  // them (src/workers/entry.ts).
  entryPoints: { main: 'src/main.ts', cli: 'src/cli.ts', 'conversion-worker': 'src/fetchers/conversion-worker.ts' },
  outdir: 'dist',
  // Every output in dist/ itself, so `new URL('./x', import.meta.url)` means dist/x whichever chunk the code landed in.
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: EXTERNAL,
  // No keepNames: identifiers are not minified, so names stay as written, and keepNames wraps every function made at
  // run time in a __name() call: 1.04–1.47× the server CPU of a cached /fetch (docs/benchmarks-log.md, "Serving").
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'eof',
  // Bundled CommonJS packages call require() for Node's built-ins; ES modules have none unless it is made.
  banner: {
    js: "import { createRequire as __fdRequire } from 'node:module';const require=__fdRequire(import.meta.url);",
  },
  logLevel: 'warning',
  metafile: true,
});
// Which sources each output file holds: test/packaging/start-up.test.ts reads it to name the modules a start loaded.
// Not in the package (package.json `files`).
writeFileSync('dist/meta.json', JSON.stringify(metafile));
// The pages' files, where their modules' relative URLs point from dist/ (pages/static-routes.ts, examples/outputs.ts).
cpSync('src/pages/static', 'dist/static', { recursive: true });
cpSync('src/pages/examples/outputs.json', 'dist/outputs.json');
