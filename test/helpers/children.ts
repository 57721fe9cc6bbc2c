// Child processes for tests: each one is killed when its test ends, whatever the outcome, and start-up waits are
// generous (a loaded 2-core machine compiles TypeScript slowly) and fail with what the child printed.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

type Hookable = { after(fn: () => Promise<void> | void): unknown };

export interface Tracked {
  child: ChildProcess;
  /** stdout and stderr as they came. */
  output(): string;
  stdout(): string;
}

/** Spawns a child whose stdout and stderr are kept, and which `t.after` kills (the whole process) if it still runs. */
export function spawnTracked(t: Hookable, command: string, args: string[], options: SpawnOptions): Tracked {
  const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let stdout = '';
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
    stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, output: () => output, stdout: () => stdout };
}

/**
 * Resolves with the first match of `pattern` in the child's output; rejects with the output if the child exits first or
 * none comes within `ms`.
 */
export function waitForOutput(tracked: Tracked, pattern: RegExp, ms = 120_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(tracked.output());
      if (!match) return;
      cleanup();
      resolve(match);
    };
    const exited = () => {
      cleanup();
      reject(new Error(`the child exited before printing ${pattern}:\n${tracked.output()}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no ${pattern} within ${ms} ms; the child printed:\n${tracked.output()}`));
    }, ms);
    const cleanup = () => {
      clearTimeout(timer);
      tracked.child.stdout?.off('data', check);
      tracked.child.stderr?.off('data', check);
      tracked.child.off('exit', exited);
    };
    tracked.child.stdout?.on('data', check);
    tracked.child.stderr?.on('data', check);
    tracked.child.once('exit', exited);
    check();
  });
}
