/**
 * The embedded demo site: one organisation with four gateways in varied states,
 * the equipment an integrator meets most (a climate computer, an energy meter, a
 * heat pump), and registers of every data type the spec names.
 */
export const demoOrganizationKey = "demo";

/**
 * The sandbox key of the demo organisation (spec section 5.6): read-only, 60
 * requests per minute per client address. Fixed so that docs and scripts can use it.
 */
export const demoSandboxKey = "fh_sandbox_demo_5f0c2e8a9b7d4613";

export const demoGatewaySerials = {
  greenhouse: "FH-DEMO-001",
  energy: "FH-DEMO-002",
  heatPump: "FH-DEMO-003",
  spare: "FH-DEMO-004",
} as const;

export const demoConfigYaml = `
organizations:
  - key: ${demoOrganizationKey}
    name: Demo Greenhouses
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
    heartbeat_s: 180
    bus: { type: tcp }
    devices:
      - name: Climate computer
        slave_id: 1
        host: 127.0.0.1
        port: 5020
        poll_interval_ms: 10000
        template: { brand: Priva, model: Connext }
        registers:
          - { name: air_temperature, address: 0, function_code: 4, data_type: int16, unit: "°C", scale_factor: 0.1, description: Greenhouse air temperature }
          - { name: relative_humidity, address: 1, function_code: 4, data_type: uint16, unit: "%RH", scale_factor: 0.1 }
          - { name: co2, address: 2, function_code: 4, data_type: uint16, unit: ppm }
          - { name: pipe_temperature, address: 3, function_code: 4, data_type: int16, unit: "°C", scale_factor: 0.1 }
          - { name: heating_setpoint, address: 100, function_code: 3, data_type: int16, unit: "°C", scale_factor: 0.1, writable: true, description: Day heating setpoint }

  - serial: ${demoGatewaySerials.energy}
    name: Main switchboard
    customer: utility
    heartbeat_s: 180
    bus: { type: tcp }
    devices:
      - name: Energy meter
        slave_id: 1
        host: 127.0.0.1
        port: 5021
        poll_interval_ms: 5000
        template: { brand: Eastron, model: SDM630 }
        registers:
          - { name: voltage_l1, address: 0, function_code: 4, data_type: float32, unit: V }
          - { name: current_l1, address: 6, function_code: 4, data_type: float32, unit: A }
          - { name: active_power, address: 52, function_code: 4, data_type: float32, unit: W }
          - { name: frequency, address: 70, function_code: 4, data_type: float32, unit: Hz }
          - { name: energy_import, address: 72, function_code: 4, data_type: int32, unit: kWh, scale_factor: 0.01, description: Total imported active energy }

  - serial: ${demoGatewaySerials.heatPump}
    name: Boiler house
    customer: utility
    heartbeat_s: 180
    bus: { type: rtu, path: /dev/ttyUSB0, baud: 9600, parity: even }
    devices:
      - name: Heat pump
        slave_id: 3
        poll_interval_ms: 30000
        template: { brand: NIBE, model: S1255 }
        registers:
          - { name: flow_temperature, address: 1, function_code: 4, data_type: int16, unit: "°C", scale_factor: 0.1 }
          - { name: return_temperature, address: 2, function_code: 4, data_type: int16, unit: "°C", scale_factor: 0.1 }
          - { name: outdoor_temperature, address: 3, function_code: 4, data_type: int16, unit: "°C", scale_factor: 0.1 }
          - { name: compressor_frequency, address: 10, function_code: 4, data_type: uint16, unit: Hz }

  - serial: ${demoGatewaySerials.spare}
    name: Packing hall (not yet installed)
    customer: westland
    bus: { type: tcp }
`;
