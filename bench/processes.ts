// The benchmarks' server processes: a child that prints its addresses as one JSON line (among any log lines), and the
// CPU time a process has used, read from /proc so that it counts every thread of the process whatever the machine does.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';

export interface ServerChild<T> {
  addresses: T;
  pid: number;
  stop(): void;
}

/** Starts `node --import tsx <script> ...args` and resolves with the first stdout line that has every key of `keys`. */
export async function startServerChild<T extends Record<string, unknown>>(
  script: string,
  args: string[],
  keys: (keyof T & string)[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<ServerChild<T>> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const addresses = await new Promise<T>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const parsed = (() => {
        try {
          return JSON.parse(line) as Partial<T>;
        } catch {
          return {} as Partial<T>;
        }
      })();
      if (keys.every((key) => parsed[key] !== undefined)) resolve(parsed as T);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { addresses, pid: child.pid!, stop: () => child.kill() };
}

/** The fields of /proc/<pid>/stat after the command name (the state first), or null when there is none. */
export function statFields(pid: number | string | undefined): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  } catch {
    return null;
  }
}

/** utime + stime (10 ms ticks) in µs. */
const fieldsCpu = (fields: string[]) => ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;

/** CPU time (µs) process `pid` has used, all its threads (utime + stime from /proc, in 10 ms ticks); NaN elsewhere. */
export function cpuMicros(pid: number | undefined): number {
  const fields = statFields(pid);
  return fields ? fieldsCpu(fields) : NaN;
}

/** Every process's parent and CPU time (µs) now, from one pass over /proc. */
export function readProcesses(): Map<number, { parent: number; cpu: number }> {
  const table = new Map<number, { parent: number; cpu: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(name);
    if (fields) table.set(Number(name), { parent: Number(fields[1]), cpu: fieldsCpu(fields) });
  }
  return table;
}

/** CPU time (µs) of each process of the trees under `roots` (them included), by pid: nginx's workers, Postgres's. */
export function treeCpu(roots: number[], table = readProcesses()): Map<number, number> {
  const tree = new Map<number, number>();
  const children = new Map<number, number[]>();
  for (const [pid, { parent }] of table) children.set(parent, [...(children.get(parent) ?? []), pid]);
  const visit = (pid: number) => {
    const entry = table.get(pid);
    if (!entry || tree.has(pid)) return;
    tree.set(pid, entry.cpu);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  roots.forEach(visit);
  return tree;
}

export const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** min / median / max of `values`. */
export function spread(values: number[], digits = 2): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return [sorted[0]!, median, sorted.at(-1)!].map((v) => v.toFixed(digits)).join(' / ');
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Connections of the cached-/fetch load windows (bench:ab, bench:serving). */
export const CONNECTIONS = 50;

export interface LoadWindow {
  rate: number;
  /** Server CPU µs per request. */
  cpu: number;
  /** Requests answered 200 in the window. */
  served: number;
  /** Answers other than 200, by status: only with `countFailures` (else the first one throws). */
  failures: Record<number, number>;
}

/** Starts reading the server's CPU; the function it returns gives the µs used since. */
export type CpuMeter = () => () => number | Promise<number>;

export interface LoadOptions {
  /** Headers of every request besides content-type (an API key). */
  headers?: Record<string, string>;
  /** Count answers other than 200 and go on (the caller prints and fails on them), instead of throwing at the first. */
  countFailures?: boolean;
}

/**
 * POST /fetch with `body` on CONNECTIONS keep-alive connections for `ms`; requests per second and the server's CPU per
 * request: of process `server` when a pid, else as the meter reads it (several processes, a process tree).
 */
export async function loadWindow(
  origin: string,
  server: number | CpuMeter,
  body: string,
  ms: number,
  options: LoadOptions = {},
): Promise<LoadWindow> {
  const pool = new Pool(origin, { connections: CONNECTIONS });
  const headers = { 'content-type': 'application/json', ...options.headers };
  let done = 0;
  const failures: Record<number, number> = {};
  const until = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < until) {
      const res = await pool.request({ method: 'POST', path: '/fetch', body, headers });
      const text = await res.body.text();
      if (res.statusCode === 200) done++;
      else if (!options.countFailures) throw new Error(`${origin} answered ${res.statusCode}`);
      else {
        if (!failures[res.statusCode]) console.error(`${origin} answered ${res.statusCode}: ${text.slice(0, 300)}`);
        failures[res.statusCode] = (failures[res.statusCode] ?? 0) + 1;
      }
    }
  };
  const meter: CpuMeter =
    typeof server === 'number'
      ? () => {
          const before = cpuMicros(server);
          return () => cpuMicros(server) - before;
        }
      : server;
  const used = meter();
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = performance.now() - started;
  await pool.close();
  const cpu = await used();
  return { rate: (done * 1000) / elapsed, cpu: cpu / done, served: done, failures };
}
