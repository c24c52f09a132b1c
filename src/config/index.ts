export { exampleConfigYaml } from "./example.ts";
export { loadConfigFile, parseConfig } from "./load.ts";
export { formatProblems } from "./problems.ts";
export type {
  BusConfig,
  BusType,
  ConfigProblem,
  ConfigResult,
  FieldhubConfig,
  Parity,
} from "./types.ts";
