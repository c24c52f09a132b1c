/**
 * The shared seeded generator (test/harness/seeded-random.ts) keeps the sequences the
 * five copies it replaced produced: benchmark data and replayable random tests depend
 * on them. The values below are mulberry32's, taken from those copies.
 */
import { expect, test } from "bun:test";
import { seededRandom } from "../harness/seeded-random.ts";

test("the same seed gives mulberry32's sequence", () => {
  const draws = (seed: number) => {
    const next = seededRandom(seed);
    return [next(), next(), next()];
  };
  expect(draws(1)).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
  expect(draws(3)).toEqual([0.7202267837710679, 0.03866216051392257, 0.4561921926215291]);
  expect(draws(20240611)).toEqual([0.8730510659515858, 0.11392460810020566, 0.04455557535402477]);
});
