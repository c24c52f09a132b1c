"""Modbus RTU equipment on a pty that keeps the time of a real serial line, for
scripts/bench/rtu-line.ts (docs/benchmarks.md, "The bus under load").

A socat pty pair carries bytes at once, whatever baud rate is set. This peer puts
the line's time back: a request that arrives at t is answered at
t + (request characters + 3.5 + answer characters) character times, as on a line
where the request takes its wire time, the device turns round after the 3.5
characters of silence that end a frame, and the answer takes its own wire time.
A master then keeps its own 3.5 characters of silence before the next request.
Requests are decoded and answered by pymodbus's own RTU framer and datastore
(Debian's pymodbus 3.0); the answer is held back by sleeping to within 1 ms of its
time and waiting out the rest, so the peer's own timer lateness stays small.

Usage: /usr/bin/python3 paced_rtu_peer.py SPEC_JSON
SPEC: {"port": "/path/of/pty", "baud": 9600, "bits": 11, "units": [1, 2], "registers": 100}
Each unit has holding registers 0..registers-1 holding 1000 + address.
Prints "READY" when serving. On stdin, one line each:
  STATS  ->  STATS {"answers": n, "early": n, "bad": n, "now": t, "late_ms": [p50, p95, max]}
  LOG    ->  LOG [[arrived, answered], ...]   (monotonic seconds, the latest 20,000)
early counts requests that arrived sooner than 3.5 characters after the previous
answer (a master that broke the silence); bad counts frames that failed the CRC.
late_ms is how much later than its time each answer was written (the peer's own
lateness, which both masters measured in one run share).
"""
import collections
import json
import logging
import os
import select
import sys
import termios
import threading
import time
import tty

from pymodbus.datastore import ModbusServerContext, ModbusSlaveContext, ModbusSequentialDataBlock
from pymodbus.factory import ServerDecoder
from pymodbus.transaction import ModbusRtuFramer

spec = json.loads(sys.argv[1])
char_s = spec.get("bits", 11) / spec.get("baud", 9600)
silence_s = 3.5 * char_s
registers = spec.get("registers", 100)
slaves = {
    unit: ModbusSlaveContext(
        hr=ModbusSequentialDataBlock(0, [1000 + i for i in range(registers)]),
        ir=ModbusSequentialDataBlock(0, [2000 + i for i in range(registers)]),
        zero_mode=True,
    )
    for unit in spec["units"]
}
context = ModbusServerContext(slaves=slaves, single=False)
STATS = {"answers": 0, "early": 0, "bad": 0}
LOG = collections.deque(maxlen=20000)
LATE = collections.deque(maxlen=20000)
lock = threading.Lock()


class BadFrames(logging.Handler):
    def emit(self, record):
        if "Frame check failed" in record.getMessage():
            STATS["bad"] += 1


framer_log = logging.getLogger("pymodbus.framer.rtu_framer")
framer_log.setLevel(logging.DEBUG)
framer_log.addHandler(BadFrames())
framer_log.propagate = False

fd = os.open(spec["port"], os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd)
attrs = termios.tcgetattr(fd)
attrs[6][termios.VMIN] = 1
attrs[6][termios.VTIME] = 0
termios.tcsetattr(fd, termios.TCSANOW, attrs)
framer = ModbusRtuFramer(ServerDecoder())


def wait_until(deadline):
    remaining = deadline - time.monotonic()
    if remaining > 0.001:
        time.sleep(remaining - 0.001)
    while time.monotonic() < deadline:
        pass


def serve():
    last_answer = 0.0
    arrived = [0.0]

    def answer(request):
        response = request.execute(context[request.unit_id])
        response.transaction_id = request.transaction_id
        response.unit_id = request.unit_id
        packet = framer.buildPacket(response)
        # unit id, function code, the PDU's data, CRC
        request_length = 2 + len(request.encode()) + 2
        due = arrived[0] + (request_length + 3.5 + len(packet)) * char_s
        wait_until(due)
        os.write(fd, packet)
        written = time.monotonic()
        with lock:
            STATS["answers"] += 1
            LOG.append((arrived[0], written))
            LATE.append((written - due) * 1000)
        return written

    while True:
        select.select([fd], [], [])
        data = os.read(fd, 512)
        arrived[0] = time.monotonic()
        if arrived[0] - last_answer < silence_s * 0.9:
            with lock:
                STATS["early"] += 1
        answered = []
        framer.processIncomingPacket(data, lambda request: answered.append(answer(request)), list(slaves))
        if answered:
            last_answer = answered[-1]


def percentile(values, p):
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * p))], 3) if ordered else 0


threading.Thread(target=serve, daemon=True).start()
print("READY", flush=True)
for line in sys.stdin:
    command = line.strip()
    with lock:
        if command == "STATS":
            late = list(LATE)
            stats = dict(STATS, now=time.monotonic(), late_ms=[percentile(late, 0.5), percentile(late, 0.95), round(max(late), 3) if late else 0])
            print("STATS " + json.dumps(stats), flush=True)
        elif command == "LOG":
            print("LOG " + json.dumps(list(LOG)), flush=True)
        else:
            print("ERROR " + command, flush=True)
