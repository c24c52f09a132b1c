export { exampleConfigYaml } from "./example.ts";
export { loadConfigFile, parseConfig } from "./load.ts";
export { formatProblems } from "./problems.ts";
export type { DeviceTemplate, TemplateKind, TemplateRegister } from "./templates/index.ts";
export { deviceTemplates, findTemplate } from "./templates/index.ts";
export type {
  AutomationAction,
  AutomationConfig,
  AutomationTrigger,
  BusConfig,
  BusType,
  Condition,
  ConfigProblem,
  ConfigResult,
  FieldhubConfig,
  OfflineDetectorConfig,
  Parity,
  PollingDevice,
  PollingGateway,
  RuleConfig,
  Severity,
} from "./types.ts";
