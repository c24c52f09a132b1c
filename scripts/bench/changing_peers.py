"""Modbus TCP peers whose values change every second, for scripts/bench/mqtt-cost.ts:
Debian's pymodbus (3.0), one process serving DEVICES devices, each on its own TCP
port (fieldhub opens one connection per host:port), each with REGISTERS holding
registers from address 0 whose int16 value is (whole seconds + address) % 1000: every
register changes every second, so every poll brings new values to publish.

Usage: /usr/bin/python3 changing_peers.py DEVICES REGISTERS
Prints "READY port,port,..." (in device order).
"""
import asyncio
import logging
import sys
import time

from pymodbus.datastore import ModbusServerContext, ModbusSequentialDataBlock, ModbusSlaveContext
from pymodbus.server.async_io import ModbusTcpServer
from pymodbus.transaction import ModbusSocketFramer


class ChangingBlock(ModbusSequentialDataBlock):
    """Values computed at each read from the wall clock's whole seconds."""

    def getValues(self, address, count=1):
        second = int(time.time())
        start = address - self.address
        return [(second + start + offset) % 1000 for offset in range(count)]


async def main():
    logging.getLogger("pymodbus").setLevel(logging.CRITICAL)
    devices, registers = int(sys.argv[1]), int(sys.argv[2])
    servers = []
    for _ in range(devices):
        slave = ModbusSlaveContext(
            hr=ChangingBlock(0, [0] * registers),
            ir=ModbusSequentialDataBlock(0, [0]),
            co=ModbusSequentialDataBlock(0, [0]),
            di=ModbusSequentialDataBlock(0, [0]),
            zero_mode=True,
        )
        context = ModbusServerContext(slaves={1: slave}, single=False)
        servers.append(ModbusTcpServer(context, ModbusSocketFramer, None, ("127.0.0.1", 0), allow_reuse_address=True))
    serving = [asyncio.ensure_future(server.serve_forever()) for server in servers]
    while any(server.server is None for server in servers):
        await asyncio.sleep(0.01)
    ports = [str(server.server.sockets[0].getsockname()[1]) for server in servers]
    print("READY " + ",".join(ports), flush=True)
    await asyncio.gather(*serving)


asyncio.run(main())
