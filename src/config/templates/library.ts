/**
 * The shipped template library itself: one module per template, by kind. index.ts
 * loads it on first use, so a box whose config names no template never does
 * (docs/benchmarks.md, "Footprint"). Add a new template here;
 * test/config/templates.test.ts checks it against the config's own rules.
 */
import { abbB23 } from "./abb-b23.ts";
import { belimoVavCompact } from "./belimo-vav-compact.ts";
import { carloGavazziEm24 } from "./carlo-gavazzi-em24.ts";
import { carloGavazziEm340 } from "./carlo-gavazzi-em340.ts";
import { chintDtsu666 } from "./chint-dtsu666.ts";
import { circutorCvmC10 } from "./circutor-cvm-c10.ts";
import { e3dcS10 } from "./e3dc-s10.ts";
import { eastronSdm72d } from "./eastron-sdm72d.ts";
import { eastronSdm72dM } from "./eastron-sdm72d-m.ts";
import { eastronSdm120 } from "./eastron-sdm120.ts";
import { eastronSdm230 } from "./eastron-sdm230.ts";
import { eastronSdm630 } from "./eastron-sdm630.ts";
import { eltakoDsz15dzmod } from "./eltako-dsz15dzmod.ts";
import { finder7m24 } from "./finder-7m24.ts";
import { finder7m38 } from "./finder-7m38.ts";
import { froniusSymo } from "./fronius-symo.ts";
import { garoGnm3d } from "./garo-gnm3d.ts";
import { growattMinTlX } from "./growatt-min-tl-x.ts";
import { huaweiSun2000 } from "./huawei-sun2000.ts";
import { idmNavigator2 } from "./idm-navigator-2.ts";
import { kostalPlenticore } from "./kostal-plenticore.ts";
import { lambdaEuL } from "./lambda-eu-l.ts";
import { nibeS1255 } from "./nibe-s1255.ts";
import { sbcAle3 } from "./sbc-ale3.ts";
import { schneiderIem3255 } from "./schneider-iem3255.ts";
import { siemensPac3200 } from "./siemens-pac3200.ts";
import { siemensRdf302 } from "./siemens-rdf302.ts";
import { smaSunnyBoyStorage } from "./sma-sunny-boy-storage.ts";
import { smaSunnyTripower } from "./sma-sunny-tripower.ts";
import { solaxX3HybridG4 } from "./solax-x3-hybrid-g4.ts";
import { sungrowShRt } from "./sungrow-sh-rt.ts";
import type { DeviceTemplate } from "./types.ts";
import { victronGx } from "./victron-gx.ts";

/**
 * By kind: energy meters, PV and hybrid inverters, batteries, heat pumps, climate controllers.
 * @public (required by index.ts on first use, which knip does not follow)
 */
export const templateLibrary: readonly DeviceTemplate[] = [
  eastronSdm630,
  carloGavazziEm24,
  eastronSdm120,
  eastronSdm230,
  eastronSdm72d,
  eastronSdm72dM,
  carloGavazziEm340,
  abbB23,
  schneiderIem3255,
  chintDtsu666,
  finder7m38,
  circutorCvmC10,
  siemensPac3200,
  finder7m24,
  garoGnm3d,
  eltakoDsz15dzmod,
  sbcAle3,
  froniusSymo,
  smaSunnyTripower,
  growattMinTlX,
  huaweiSun2000,
  sungrowShRt,
  kostalPlenticore,
  solaxX3HybridG4,
  e3dcS10,
  smaSunnyBoyStorage,
  victronGx,
  nibeS1255,
  idmNavigator2,
  lambdaEuL,
  siemensRdf302,
  belimoVavCompact,
];
