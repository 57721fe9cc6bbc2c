// Preloaded with `node --import` into a process under test (plain JavaScript: the installed package runs without tsx).
// Appends every module file the process resolves to the file named by FETCHDOWN_MODULE_LOG, in order, and a line
// `-- stdout` each time the process writes to stdout, so a test can tell what had loaded before each MCP answer.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';

const log = process.env.FETCHDOWN_MODULE_LOG;
if (log) {
  register('./module-log-hooks.mjs', import.meta.url, { data: { log } });
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (...args) => {
    appendFileSync(log, '-- stdout\n');
    return write(...args);
  };
}
