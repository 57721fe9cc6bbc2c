// Chromium's share of the machine, read from /proc. Playwright launches the browser as a child of this process
// (Debian's /usr/bin/chromium is a script that execs the binary): the children of this process named `chromium` and
// their descendants are the browser, its zygotes, renderers and utility processes (tsx's esbuild, a child, is not).
// Its CPU counts processes already gone too: each live process's cutime + cstime holds the CPU of the children it
// has reaped (renderers of closed contexts).
import { readdirSync, readFileSync } from 'node:fs';
import { statFields } from './processes.js';

const TICK_MS = 10; // utime, stime, cutime and cstime are in ticks of 1/100 s (CLK_TCK) on Linux

export interface TreeUsage {
  /** CPU (ms) of the live processes and of the children they reaped. */
  cpuMs: number;
  /** Sum of every process's RSS: pages shared between them (libraries, shared memory) count once per process. */
  rssMb: number;
  /** Sum of every process's proportional set size: shared pages split between the processes sharing them. */
  pssMb: number;
  processes: number;
}

/** Chromium's processes: this process's children named `chromium` and their descendants, from one pass over /proc. */
export function chromiumPids(): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = Number(statFields(name)?.[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const found: number[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  for (const child of children.get(process.pid) ?? []) {
    if (commOf(child) !== 'chromium') continue;
    found.push(child);
    visit(child);
  }
  return found;
}

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** A kB line of /proc/<pid>/status or smaps_rollup, in MB; 0 once the process is gone. */
function kbLine(path: string, key: string): number {
  try {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(path, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU of Chromium's processes (cheap: their stat files); with `memory`, their RSS and PSS too. */
export function chromiumUsage(memory = false): TreeUsage {
  const usage: TreeUsage = { cpuMs: 0, rssMb: 0, pssMb: 0, processes: 0 };
  for (const pid of chromiumPids()) {
    const fields = statFields(pid);
    if (!fields) continue;
    usage.processes++;
    usage.cpuMs += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * TICK_MS;
    if (!memory) continue;
    usage.rssMb += kbLine(`/proc/${pid}/status`, 'VmRSS');
    usage.pssMb += kbLine(`/proc/${pid}/smaps_rollup`, 'Pss');
  }
  return usage;
}

/** This process's CPU (every thread: the fetcher, extraction, the egress proxy, the fixture sites) in ms. */
export function nodeCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

export const nodeRssMb = () => process.memoryUsage.rss() / 2 ** 20;
