/**
 * The embedded demo site: one organisation with four gateways in varied states
 * and the equipment an integrator meets most: a greenhouse climate computer and
 * a fan-coil thermostat, an energy meter and a PV inverter, and a heat pump on a
 * serial bus. Template devices use fieldhub's shipped register maps in full.
 */
export const demoOrganizationKey = "demo";

/**
 * The sandbox key of the demo organisation (docs/api.md section 5.6): read-only, 60
 * requests per minute per client address. Fixed so that docs and scripts can use it.
 */
export const demoSandboxKey = "fh_sandbox_demo_5f0c2e8a9b7d4613";

/** How often the demo's gateways store a reading per register (their `storage_interval_s`). */
export const demoStorageIntervalMs = 60_000;

export const demoGatewaySerials = {
  greenhouse: "FH-DEMO-001",
  energy: "FH-DEMO-002",
  heatPump: "FH-DEMO-003",
  spare: "FH-DEMO-004",
} as const;

/** Loopback ports of the simulated devices, chosen when the demo starts. */
export interface DemoPorts {
  climateComputer: number;
  thermostat: number;
  energyMeter: number;
  inverter: number;
}

/** The demo's config; device ids depend on names only, so they stay the same whatever the ports. */
export function demoConfigYaml(ports: DemoPorts): string {
  return `
# A sandbox with a public key: any browser page may call it (docs/api.md section 4.11).
api:
  cors_origins: ["*"]

organizations:
  - key: ${demoOrganizationKey}
    name: Demo Greenhouses
    writes_enabled: true   # the heating setpoint can be set from the admin page (the sandbox key stays read-only)
    customers:
      - key: westland
        name: Westland greenhouse
        city: Naaldwijk
      - key: utility
        name: Utility building
        city: Delft

gateways:
  - serial: ${demoGatewaySerials.greenhouse}
    name: Greenhouse north
    customer: westland
    heartbeat_s: 60
    storage_interval_s: ${demoStorageIntervalMs / 1000}
    bus: { type: tcp }
    devices:
      - name: Climate computer
        slave_id: 1
        host: 127.0.0.1
        port: ${ports.climateComputer}
        poll_interval_ms: 5000
        registers:
          - { name: air_temperature, address: 0, function_code: 4, data_type: int16, unit: "°C", scale_factor: 0.1, description: Greenhouse air temperature }
          - { name: relative_humidity, address: 1, function_code: 4, data_type: uint16, unit: "%RH", scale_factor: 0.1 }
          - { name: co2, address: 2, function_code: 4, data_type: uint16, unit: ppm }
          - { name: pipe_temperature, address: 3, function_code: 4, data_type: int16, unit: "°C", scale_factor: 0.1 }
          - { name: screen_position, address: 4, function_code: 4, data_type: uint16, unit: "%" }
          - { name: heating_setpoint, address: 100, function_code: 3, data_type: int16, unit: "°C", scale_factor: 0.1, writable: true, min: 10, max: 30, description: Day heating setpoint }
          - { name: vent_position, address: 5, function_code: 4, data_type: uint16, unit: "%", description: Roof vent opening }
          - { name: door_open, address: 6, function_code: 4, data_type: bool, bit: 0, description: Loading door contact }
      - name: Fan-coil thermostat
        slave_id: 1
        host: 127.0.0.1
        port: ${ports.thermostat}
        poll_interval_ms: 10000
        template: { brand: Siemens, model: RDF302 }

  - serial: ${demoGatewaySerials.energy}
    name: Main switchboard
    customer: utility
    heartbeat_s: 60
    storage_interval_s: ${demoStorageIntervalMs / 1000}
    bus: { type: tcp }
    devices:
      - name: Energy meter
        slave_id: 1
        host: 127.0.0.1
        port: ${ports.energyMeter}
        poll_interval_ms: 5000
        template: { brand: Eastron, model: SDM630 }
        registers:
          # An energy counter as a 32-bit integer in hundredths of a kWh, beside the template's float.
          - { name: energy_import_counter, address: 1000, function_code: 3, data_type: int32, unit: kWh, scale_factor: 0.01 }
      - name: PV inverter
        slave_id: 1
        host: 127.0.0.1
        port: ${ports.inverter}
        poll_interval_ms: 10000
        template: { brand: Fronius, model: Symo }

  - serial: ${demoGatewaySerials.heatPump}
    name: Boiler house
    customer: utility
    heartbeat_s: 180
    storage_interval_s: ${demoStorageIntervalMs / 1000}
    bus: { type: rtu, path: /dev/ttyFIELDHUB-DEMO, baud: 9600, parity: even }
    devices:
      - name: Heat pump
        slave_id: 3
        poll_interval_ms: 30000
        template: { brand: NIBE, model: S1255 }

  - serial: ${demoGatewaySerials.spare}
    name: Packing hall (not yet installed)
    customer: westland
    bus: { type: tcp }

# Rules that fire and return within minutes of starting: the vent opens fully every
# four minutes, the loading door opens for three minutes every six.
rules:
  - name: Vent wide open
    gateway: ${demoGatewaySerials.greenhouse}
    device: Climate computer
    register: vent_position
    condition: gt
    threshold: 80
    hysteresis: 5
    severity: info
  - name: Loading door open
    gateway: ${demoGatewaySerials.greenhouse}
    device: Climate computer
    register: door_open
    condition: eq
    threshold: 1
    for_s: 20
    severity: warning
    message: "Loading door of {gateway} open for more than 20 s"
  - name: Supply voltage low
    gateway: ${demoGatewaySerials.energy}
    device: Energy meter
    register: voltage_l1
    condition: lt
    threshold: 215
    severity: critical

offline_alerts:
  severity: critical

automations:
  - name: Door alarm to the BMS
    trigger: { rule: Loading door open }
    actions:
      - { type: webhook }
`;
}
