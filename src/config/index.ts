export { lookupTemplate } from "./device-registers.ts";
export { type ConfigDiff, type ConfigSnapshot, configSnapshot, describeChange, diffConfigs } from "./diff.ts";
export { exampleConfigYaml } from "./example.ts";
export {
  checkConfig,
  checkConfigFile,
  loadConfigFile,
  parseConfig,
  readConfigFile,
} from "./load.ts";
export { formatLocatedProblems, formatProblems } from "./problems.ts";
export type { DeviceTemplate, TemplateRegister } from "./templates/index.ts";
export { deviceTemplates, findTemplate } from "./templates/index.ts";
export type {
  AutomationConfig,
  ConfigProblem,
  FieldhubConfig,
  LocatedProblem,
  OfflineDetectorConfig,
  PollingDevice,
  PollingGateway,
  RuleConfig,
} from "./types.ts";
