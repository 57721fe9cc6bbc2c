// Where a worker module is, from the module that starts it: beside it, compiled (dist/*.js), or as TypeScript under
// tsx (tests, `npm run dev`, the benchmarks). Node 20 does not hand tsx's loader to worker threads (`--import tsx` in
// their flags still leaves `.ts` unknown), so a TypeScript module is started by a two-line script that registers tsx
// in the thread first.

export interface WorkerEntry {
  /** The module's URL, or the script that loads it (with `eval`). */
  source: URL | string;
  eval: boolean;
}

/** `name`: the worker module's file name without extension, in the directory of `from` (an import.meta.url). */
export function workerEntry(from: string, name: string): WorkerEntry {
  if (!from.endsWith('.ts')) return { source: new URL(`./${name}.js`, from), eval: false };
  const module = new URL(`./${name}.ts`, from).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const script =
    `import(${JSON.stringify(tsx)})` +
    `.then(({ register }) => { register(); return import(${JSON.stringify(module)}); })`;
  return { source: script, eval: true };
}
