export { exampleConfigYaml } from "./example.ts";
export { loadConfigFile, parseConfig } from "./load.ts";
export { formatProblems } from "./problems.ts";
export type { DeviceTemplate, TemplateKind, TemplateRegister } from "./templates/index.ts";
export { deviceTemplates, findTemplate } from "./templates/index.ts";
export type {
  BusConfig,
  BusType,
  ConfigProblem,
  ConfigResult,
  FieldhubConfig,
  Parity,
  PollingDevice,
  PollingGateway,
} from "./types.ts";
