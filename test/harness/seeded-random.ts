/**
 * One seeded generator for tests and benchmarks (mulberry32): the same seed gives the
 * same sequence on every run, so a failing random case can be replayed and benchmark
 * data is the same from run to run. Changing the algorithm changes every benchmark's
 * data (docs/benchmarks.md figures were measured with this one).
 */

/** Returns a function yielding numbers in [0, 1), determined by `seed`. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
