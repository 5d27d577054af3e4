/**
 * CPU time, read before and after a measured window: of one process and of the whole machine
 * from /proc (Linux), of Redis from INFO, of this process (the load generator) from Node.
 */
import fs from 'node:fs';
import { Redis } from 'ioredis';

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); null elsewhere. */
export function cpuMs(pid: number | undefined): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the command name).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
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
