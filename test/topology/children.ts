// Child processes of the topology test: spawned in a process group of their own with their output kept (start-up
// failures quote it), waited for with generous limits, and all killed when the test file ends, whatever happened.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';

export interface Child {
  name: string;
  process: ChildProcess;
  /** Everything written to stdout and stderr so far (the last 64 KB). */
  output(): string;
  /** Resolves with the exit code (or signal) once it has exited. */
  exited: Promise<string>;
  hasExited(): boolean;
}

const children = new Set<Child>();
const OUTPUT_LIMIT = 64 * 1024;

export function startChild(name: string, command: string, args: string[], options: SpawnOptions = {}): Child {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let done = false;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve(signal ?? String(code));
    });
    child.once('error', (error) => {
      done = true;
      output += `\n${String(error)}`;
      resolve('spawn error');
    });
  });
  const handle: Child = { name, process: child, output: () => output, exited, hasExited: () => done };
  children.add(handle);
  void exited.then(() => children.delete(handle));
  return handle;
}

/** Signals the child's whole process group (nginx's workers, Postgres's backends too). */
export function signal(child: Child, name: NodeJS.Signals): void {
  if (child.hasExited() || child.process.pid === undefined) return;
  try {
    process.kill(-child.process.pid, name);
  } catch {
    child.process.kill(name);
  }
}

/** SIGKILL for every child still running; for the test's `after`, so nothing outlives a failure. */
export async function killAll(): Promise<void> {
  const running = [...children];
  for (const child of running) signal(child, 'SIGKILL');
  await Promise.all(running.map((child) => child.exited));
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until it returns true; fails after `limitMs` with the child's output, or at once if the child exits.
 */
export async function waitUntil(
  child: Child | null,
  what: string,
  probe: () => Promise<boolean>,
  limitMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (child?.hasExited()) throw new Error(`${child.name} exited before ${what}:\n${child.output()}`);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${limitMs} ms${child ? `; output of ${child.name}:\n${child.output()}` : ''}`,
      );
    await sleep(100);
  }
}
