/**
 * A realistic, commented fieldhub.yaml. docs/config.md shows the same text and a
 * test checks both that it is valid and that the docs copy has not drifted.
 */
export const exampleConfigYaml = `# fieldhub.yaml — one site of Acme Greenhouses.
# Check it with: fieldhub config check fieldhub.yaml

server:
  host: 0.0.0.0          # listen on every interface
  port: 8080
  public_url: http://fieldhub.acme.local:8080   # how clients reach this box (used in links)

retention:
  readings_days: 365     # readings older than this are pruned

api:
  rate_limit_per_minute: 100   # per API key

organizations:
  - key: acme            # short, stable key: ids are derived from it, so don't rename it
    name: Acme Greenhouses
    customers:
      - key: venlo-north
        name: Venlo North site
        city: Venlo

gateways:
  # Modbus TCP: each device has its own host (and port, default 502).
  - serial: FH-0001
    name: Greenhouse 1
    organization: acme   # may be left out while there is only one organisation
    customer: venlo-north
    heartbeat_s: 300
    bus:
      type: tcp
    devices:
      - name: Climate computer
        host: 10.0.0.5
        slave_id: 1
        poll_interval_ms: 60000
        template: { brand: Priva, model: Connext }
        registers:
          - name: air_temperature
            address: 0
            function_code: 4       # input register
            data_type: int16
            unit: "°C"
            scale_factor: 0.1      # raw 215 -> 21.5 °C
            description: Air temperature in compartment 1
          - name: heating_setpoint
            address: 100
            data_type: int16       # function_code defaults to 3 (holding register)
            unit: "°C"
            scale_factor: 0.1
            writable: true
      - name: Energy meter
        host: 10.0.0.6
        port: 502
        slave_id: 1
        poll_interval_ms: 15000
        registers:
          - name: active_power
            address: 52
            data_type: float32
            unit: kW
          - name: energy_total
            address: 342
            data_type: uint32
            unit: kWh

  # Modbus RTU on the box's own RS-485 port: devices are told apart by slave_id only.
  - serial: FH-0002
    name: Boiler room
    customer: venlo-north
    bus:
      type: rtu
      path: /dev/ttyUSB0
      baud: 19200
      parity: even           # data_bits 8 and stop_bits 1 are the defaults
    devices:
      - name: Heat pump
        slave_id: 3
        registers:
          - name: flow_temperature
            address: 1
            data_type: int16
            unit: "°C"
            scale_factor: 0.1
          - name: compressor_running
            address: 10
            function_code: 1       # coil
            data_type: bool
`;
