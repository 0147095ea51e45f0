// CPU accounting for the load benches (bench:load, bench:api): what a run cost this process (the server), its child
// processes that have ended (the load generators), and PostgreSQL, read from /proc. On a machine shared with other
// work, a run's CPU per request is the figure that compares between runs; req/s and latency depend on the neighbours.
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** utime + stime, cutime + cstime (clock ticks) and the parent of a process, from /proc/<pid>/stat. */
function ticksOf(pid: number | 'self'): { own: number; children: number; ppid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      ppid: Number(fields[1]),
      own: Number(fields[11]) + Number(fields[12]),
      children: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return null;
  }
}

/** The postmaster of a PostgreSQL backend (SELECT pg_backend_pid()). */
export function postmasterOf(backendPid: number): number {
  const found = ticksOf(backendPid);
  if (!found) throw new Error(`No process ${backendPid}: is PostgreSQL on this machine?`);
  return found.ppid;
}

const TICKS_PER_SECOND = 100;

/** CPU seconds spent so far by one process and its ended children (the analytics store's child process); 0 when gone. */
export function processCpuSeconds(pid: number): number {
  const found = ticksOf(pid);
  return found ? (found.own + found.children) / TICKS_PER_SECOND : 0;
}

/**
 * CPU seconds spent so far by this process (`server`), by its ended child processes (`clients`: counted once reaped,
 * so read after a child has exited), and by PostgreSQL (`postgres`): the postmaster's children alive now (the
 * connections' backends) and, through the postmaster's totals of its ended children, those that ended (parallel
 * workers).
 */
export function cpuSeconds(postmaster: number): { server: number; clients: number; postgres: number } {
  const usage = process.cpuUsage();
  const self = ticksOf('self');
  let ticks = ticksOf(postmaster)?.children ?? 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = ticksOf(Number(entry));
    if (child?.ppid === postmaster) ticks += child.own + child.children;
  }
  return {
    server: (usage.user + usage.system) / 1e6,
    clients: (self?.children ?? 0) / TICKS_PER_SECOND,
    postgres: ticks / TICKS_PER_SECOND,
  };
}

/** The machine's load averages over 1, 5 and 15 minutes as `uptime` prints them, with the time of day. */
export function loadLine(): string {
  const averages = loadavg().map((n) => n.toFixed(2));
  return `${new Date().toISOString().slice(11, 19)} UTC, load average: ${averages.join(', ')}`;
}
