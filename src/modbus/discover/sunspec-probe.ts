/**
 * What a unit says through SunSpec (docs/discover.md): its model chain, found by
 * src/modbus/sunspec/chain.ts, with each model's name and the common model's text
 * (model 1: Mn, Md, Vr, SN).
 */
import type { RegisterReader } from "./scan.ts";

export interface SunSpecFound {
  /** The address of the "SunS" marker. */
  base: number;
  models: { id: number; name: string | null; address: number; length: number }[];
  /** The model ids a device entry can poll (`sunspec: { models: [...] }`): the known ones. */
  pollable: number[];
  common: { manufacturer: string | null; model: string | null; version: string | null; serial: string | null } | null;
}

export async function readSunSpec(_read: RegisterReader): Promise<SunSpecFound | null> {
  return null;
}
