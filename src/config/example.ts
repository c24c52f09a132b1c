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
    storage_interval_s: 300  # keep one reading every 5 minutes (the default), however often devices are polled
    bus:
      type: tcp
    devices:
      - name: Climate computer
        host: 10.0.0.5
        slave_id: 1
        poll_interval_ms: 60000
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
            writable: true         # writes through the API need the organisation's writes_enabled
            min: 5                 # a writable register's bounds, in engineering units (°C here)
            max: 30
          - name: screen_closed
            address: 120
            data_type: bool        # one bit of a holding register
            bit: 3
          - name: program_name
            address: 200
            data_type: string
            length: 8              # 8 registers: up to 16 characters
      - name: Solar inverter
        host: 10.0.0.7
        slave_id: 1
        template: { brand: Fronius, model: Symo }  # the library's register map (docs/config.md)
        exclude: [manufacturer, model]           # template registers this device does without
        registers:
          - name: ac_power         # a template register's name: changes only what is written
            unit: kW
            scale_factor: 0.001

  # Modbus RTU on the box's own RS-485 port: devices are told apart by slave_id only.
  - serial: FH-0002
    name: Boiler room
    customer: venlo-north
    bus:
      type: rtu
      path: /dev/ttyUSB0
      baud: 9600
      parity: even           # data_bits 8 and stop_bits 1 are the defaults
    devices:
      - name: Energy meter
        slave_id: 1
        template: { brand: Eastron, model: SDM630 }  # polled every 15 s, at most 80 registers a request
        storage_interval_s: 60   # denser history for this meter
        timeout_ms: 500
        retries: 2
        registers:
          - name: voltage_thd_l1   # not in the template: added after its registers
            address: 234
            function_code: 4
            data_type: float32
            unit: "%"
      - name: Heat pump
        slave_id: 3
        pause_ms: 50             # a slow controller: wait between two requests
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

  # Modbus RTU through a serial-to-Ethernet converter: one TCP connection for the whole bus.
  - serial: FH-0003
    name: Office
    customer: venlo-north
    bus:
      type: rtu_over_tcp
      host: 10.0.0.20
      port: 4001
    devices:
      - name: Meeting room thermostat
        slave_id: 5
        template: { brand: Siemens, model: RDF302 }

# Alert rules: each watches one register, in engineering units (value = raw x scale_factor).
rules:
  - name: Greenhouse too hot
    gateway: FH-0001
    device: Climate computer
    register: air_temperature
    condition: gt            # gt, gte, lt, lte, eq or ne
    threshold: 30            # °C
    hysteresis: 1            # returned only once the value is back at or below 29 °C
    for_s: 300               # and raised only after 5 minutes above 30 °C
    severity: warning        # the default
    # no message: "air_temperature above {threshold} {unit}: {value} {unit}"

# The offline detector: an alert when a gateway stops reporting. These are its defaults.
offline_alerts:
  enabled: true
  severity: critical
  name: Gateway offline
  devices: false       # true: an alert too for each Modbus device behind an online gateway that stops answering

automations:
  - name: Notify when too hot
    trigger: { rule: Greenhouse too hot }   # or { schedule: "0 7 * * *" } (cron)
    actions:
      - type: webhook        # automation.triggered to the webhook endpoints of the rule's organisation
`;
