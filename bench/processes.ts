// The benchmarks' server processes: a child that prints its addresses as one JSON line (among any log lines), and the
// CPU time a process has used, read from /proc so that it counts every thread of the process whatever the machine does.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/** CPU time (µs) process `pid` has used, all its threads (utime + stime from /proc, in 10 ms ticks); NaN elsewhere. */
export function cpuMicros(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return NaN;
  }
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
}

/** POST /fetch with `body` on CONNECTIONS keep-alive connections for `ms`; requests per second and CPU of `pid`. */
export async function loadWindow(origin: string, pid: number, body: string, ms: number): Promise<LoadWindow> {
  const pool = new Pool(origin, { connections: CONNECTIONS });
  let done = 0;
  const until = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < until) {
      const res = await pool.request({
        method: 'POST',
        path: '/fetch',
        body,
        headers: { 'content-type': 'application/json' },
      });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${origin} answered ${res.statusCode}`);
      done++;
    }
  };
  const cpu = cpuMicros(pid);
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = performance.now() - started;
  await pool.close();
  return { rate: (done * 1000) / elapsed, cpu: (cpuMicros(pid) - cpu) / done };
}
