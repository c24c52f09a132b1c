"""Modbus TCP peers for scripts/bench/modbus-poll.ts: Debian's pymodbus (3.0),
one process serving several devices, each on its own TCP port (fieldhub opens one
connection per host:port, so one port per device is what lets connections run in
parallel). Values are encoded by pymodbus's BinaryPayloadBuilder.

Usage: /usr/bin/python3 pymodbus_peers.py < SPEC_JSON
SPEC: {"devices": [{"unit": 1, "hr": [ENTRY, ...], "ir": [ENTRY, ...]}, ...]}
ENTRY: {"address": 0, "type": "int16" | "uint32" | "float32" | "raw", "value": ..., "order": "ABCD" | "CDAB"}
       ("raw": a list of words, e.g. the filler of a gap the planner reads through).
Only the addresses the entries cover are defined (a sparse block): reading any
other address answers exception 2. Prints "READY port,port,..." (in device order).
"""
import asyncio
import json
import logging
import sys

from pymodbus.constants import Endian
from pymodbus.datastore import ModbusServerContext, ModbusSlaveContext, ModbusSparseDataBlock
from pymodbus.payload import BinaryPayloadBuilder
from pymodbus.server.async_io import ModbusTcpServer
from pymodbus.transaction import ModbusSocketFramer

ORDERS = {
    "ABCD": (Endian.Big, Endian.Big),
    "CDAB": (Endian.Big, Endian.Little),
}


def encode(entry):
    if entry["type"] == "raw":
        return list(entry["value"])
    byteorder, wordorder = ORDERS[entry.get("order", "ABCD")]
    builder = BinaryPayloadBuilder(byteorder=byteorder, wordorder=wordorder)
    adders = {
        "int16": builder.add_16bit_int,
        "uint16": builder.add_16bit_uint,
        "int32": builder.add_32bit_int,
        "uint32": builder.add_32bit_uint,
        "float32": builder.add_32bit_float,
    }
    adders[entry["type"]](entry["value"])
    return builder.to_registers()


def block(entries):
    values = {}
    for entry in entries:
        for offset, word in enumerate(encode(entry)):
            values[entry["address"] + offset] = word
    return ModbusSparseDataBlock(values or {65535: 0})


async def main():
    logging.getLogger("pymodbus").setLevel(logging.CRITICAL)
    spec = json.load(sys.stdin)
    servers = []
    for device in spec["devices"]:
        slave = ModbusSlaveContext(
            hr=block(device.get("hr", [])),
            ir=block(device.get("ir", [])),
            co=block([]),
            di=block([]),
            zero_mode=True,
        )
        context = ModbusServerContext(slaves={int(device["unit"]): slave}, single=False)
        servers.append(ModbusTcpServer(context, ModbusSocketFramer, None, ("127.0.0.1", 0), allow_reuse_address=True))
    serving = [asyncio.ensure_future(server.serve_forever()) for server in servers]
    while any(server.server is None for server in servers):
        await asyncio.sleep(0.01)
    ports = [str(server.server.sockets[0].getsockname()[1]) for server in servers]
    print("READY " + ",".join(ports), flush=True)
    await asyncio.gather(*serving)


asyncio.run(main())
