// The CPU time one thread of this process has run, read from Linux's /proc: the pool weighs a page's own work against
// its limit, not the time its thread waited for a core. Null wherever /proc cannot say (other systems, no procfs).
import { readFileSync, readlinkSync } from 'node:fs';

/** The calling thread's id (its /proc/self/task entry); null where there is none. */
export function currentThreadId(): number | null {
  try {
    const match = /\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on every Linux Node runs on). */
const TICKS_PER_SECOND = 100;

/**
 * Milliseconds of CPU thread `tid` of this process has run: schedstat's nanoseconds where the kernel keeps them, else
 * stat's user and system ticks; null once the thread is gone or where neither can be read.
 */
export function threadCpuMs(tid: number): number | null {
  try {
    const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1').split(' ')[0]);
    if (Number.isFinite(ns)) return ns / 1e6;
  } catch {
    // no schedstat (a kernel without CONFIG_SCHED_INFO): stat's ticks below
  }
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
    // Fields after the command name, which may hold spaces and parentheses: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}
