export { exampleConfigYaml } from "./example.ts";
export { loadConfigFile, parseConfig } from "./load.ts";
export { formatProblems } from "./problems.ts";
export type { DeviceTemplate } from "./templates/index.ts";
export { deviceTemplates, findTemplate } from "./templates/index.ts";
export type {
  AutomationConfig,
  ConfigProblem,
  FieldhubConfig,
  OfflineDetectorConfig,
  PollingDevice,
  PollingGateway,
  RuleConfig,
} from "./types.ts";
