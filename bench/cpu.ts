/**
 * CPU time, read before and after a measured window: of one process and of the whole machine
 * from /proc (Linux), of Redis from INFO, of this process (the load generator) from Node.
 */
import fs from 'node:fs';
import { Redis } from 'ioredis';

/** The fields of /proc/<pid>/stat after the command name (state first); throws when it is gone. */
function statFields(pid: number | string): string[] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); null elsewhere. */
export function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = statFields(pid ?? NaN);
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the command name).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** A process's parent (field 4 of /proc/<pid>/stat), when it is named `command`; null otherwise. */
export function parentNamed(pid: number, command: string): number | null {
  try {
    const parent = Number(statFields(pid)[1]);
    return fs.readFileSync(`/proc/${parent}/comm`, 'utf8').trim() === command ? parent : null;
  } catch {
    return null;
  }
}

/**
 * A local PostgreSQL server's CPU: its postmaster's, its children's alive now (backends, WAL
 * writer, checkpointer) and those it has reaped (`cutime`, `cstime`), so that a backend that ends
 * inside the window still counts. Null when the postmaster is not a process of this machine.
 */
export function postgresMeter(postmasterPid: number | null): CpuMeter {
  return {
    name: 'postgres',
    read: async () => {
      if (postmasterPid === null) return null;
      try {
        const own = statFields(postmasterPid);
        // utime, stime, cutime, cstime: fields 14 to 17 of the line.
        let ticks = own.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
        for (const entry of fs.readdirSync('/proc')) {
          if (!/^\d+$/.test(entry)) continue;
          try {
            const fields = statFields(entry);
            // The parent's pid is field 4 (1 after the command name).
            if (Number(fields[1]) === postmasterPid) ticks += Number(fields[11]) + Number(fields[12]);
          } catch {
            // Gone meanwhile: its time is in the postmaster's cutime once reaped.
          }
        }
        return (ticks * 1000) / 100;
      } catch {
        return null;
      }
    },
  };
}

/**
 * Busy and total CPU time of the whole machine so far (all cores, ms), from /proc/stat; null
 * elsewhere. The load generator, Redis and the sandbox share the cores with the server: when
 * the machine is saturated, its CPU per hop bounds the throughput whatever the server does.
 */
export function machineCpuMs(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((sum, tick) => sum + tick, 0);
    const idle = ticks[3] + (ticks[4] ?? 0); // idle + iowait
    return { busy: ((total - idle) * 1000) / 100, total: (total * 1000) / 100 };
  } catch {
    return null;
  }
}

/** A source of cumulative CPU time (ms): one process, Redis, the load generator. */
export interface CpuMeter {
  name: string;
  read: () => Promise<number | null>;
}

export function processMeter(name: string, pid: number | undefined): CpuMeter {
  return { name, read: async () => cpuMs(pid) };
}

/** This process: the load generator's own cost, part of every hop on a shared machine. */
export const loadGeneratorMeter: CpuMeter = {
  name: 'load generator',
  read: async () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
};

/** Redis's CPU from INFO (it may run outside our process tree). */
export function redisMeter(redis: Redis): CpuMeter {
  return {
    name: 'redis',
    read: async () => {
      const info = await redis.info('cpu');
      const seconds = (field: string) => Number(new RegExp(`${field}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
      return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1000;
    },
  };
}
