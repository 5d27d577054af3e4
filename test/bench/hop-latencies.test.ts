import { summary, type Result } from '../../bench/summary';

// The bench's "p50/p99 ms by hop": each hop's place in its dialogue kept apart, a place no
// dialogue played left out rather than reported as zero.
const result = (latenciesByHop: number[][]): Result => ({
  hops: latenciesByHop.flat().length,
  buys: 0,
  cpu: [{ name: 'server', ms: 1 }],
  machine: null,
  errors: 0,
  unexpected: [],
  elapsedMs: 1000,
  latencies: latenciesByHop.flat(),
  latenciesByHop,
});

it('gives each place of the dialogue its own p50 and p99', () => {
  const dial = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100 ms
  const buy = Array.from({ length: 100 }, (_, i) => 1000 - i); // 901..1000 ms, unsorted
  const byHop: number[][] = [];
  byHop[0] = dial;
  byHop[5] = buy;
  const { byHop: places, p99 } = summary(result(byHop));
  expect(places[0]).toEqual({ p50: 51, p99: 100 });
  expect(places[5]).toEqual({ p50: 951, p99: 1000 });
  // The places between were never played: absent, not zero.
  expect(places.slice(1, 5)).toEqual([undefined, undefined, undefined, undefined]);
  // All hops together: the tail is the Buy's.
  expect(p99).toBe(999);
});
