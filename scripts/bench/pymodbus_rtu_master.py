"""pymodbus's own RTU client (Debian's pymodbus 3.0) polling a serial line back to back,
the baseline of scripts/bench/rtu-line.ts (docs/benchmarks.md, "The bus under load").

Usage: /usr/bin/python3 pymodbus_rtu_master.py PORT BAUD UNIT COUNT SECONDS
Reads COUNT holding registers from 0 of UNIT, one request after another, for SECONDS;
prints one JSON line: {"reads": n, "errors": n, "mismatches": n}.
"""
import json
import sys
import time

from pymodbus.client import ModbusSerialClient

port, baud, unit, count, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
client = ModbusSerialClient(port, baudrate=baud, bytesize=8, parity="N", stopbits=1, timeout=1)
client.connect()
expected = [1000 + i for i in range(count)]
reads = errors = mismatches = 0
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    response = client.read_holding_registers(0, count, slave=unit)
    reads += 1
    if response.isError():
        errors += 1
    elif list(response.registers) != expected:
        mismatches += 1
client.close()
print(json.dumps({"reads": reads, "errors": errors, "mismatches": mismatches}), flush=True)
