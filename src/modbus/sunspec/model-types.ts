/**
 * The shape of fieldhub's SunSpec model tables (models/, generated from the published
 * SunSpec model definitions by scripts/sunspec/generate-models.ts; docs/sunspec.md).
 * Offsets count registers: a model's point offsets from its id word (offset 0, the
 * length word at 1, the first point at 2); a group's point offsets from the group's
 * first register.
 */

export interface SunSpecPoint {
  name: string;
  /** The SunSpec point type: int16, uint16, acc32, enum16, bitfield32, sunssf, string, float32, pad, ... */
  type: string;
  /** Registers it spans. */
  size: number;
  offset: number;
  label?: string;
  unit?: string;
  /** The name of the scale-factor point (value = raw x 10^sf), or a fixed exponent. */
  sf?: string | number;
  description?: string;
  writable?: boolean;
  mandatory?: boolean;
}

export interface SunSpecGroup {
  name: string;
  label?: string;
  /** Instances: a number (0: as many as fill the model's length), or the name of the point that counts them. */
  count: number | string;
  /** Registers of one instance (its own points; nested groups not counted). */
  length: number;
  points: SunSpecPoint[];
  groups?: SunSpecGroup[];
}

export interface SunSpecModel {
  id: number;
  name: string;
  label: string;
  description: string | null;
  /** Registers of the model's fixed part, the id and length words included. */
  fixedLength: number;
  points: SunSpecPoint[];
  groups: SunSpecGroup[];
}
