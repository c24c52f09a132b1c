/**
 * The one place fieldhub touches libc: opening a serial tty and setting its line
 * (speed, data bits, parity, stop bits, raw mode) through termios, via bun:ffi.
 *
 * bun:ffi is marked experimental by Bun, so nothing else in fieldhub imports it:
 * this module hands out plain file descriptors and plain objects.
 *
 * Assumption: Linux with glibc on x86-64 or arm64. Both use the same
 * `struct termios` (asm-generic layout) and the same flag values; the numbers below
 * were measured with gcc against /usr/include on Debian 12 (glibc 2.36, x86-64):
 *
 *   sizeof(struct termios) = 60, NCCS = 32
 *   c_iflag @0, c_oflag @4, c_cflag @8, c_lflag @12  (tcflag_t = uint32)
 *   c_line  @16 (cc_t = uint8), c_cc[32] @17
 *   c_ispeed @52, c_ospeed @56                       (speed_t = uint32)
 *   VTIME = 5, VMIN = 6 (indexes into c_cc)
 *
 * musl, macOS and the BSDs differ (other library names, other layouts or values);
 * they are refused with an explicit error rather than guessed at.
 */
import { dlopen, FFIType, ptr, read } from "bun:ffi";
import * as fs from "node:fs";

// ---- struct termios (Linux glibc x86-64 / arm64) -------------------------------
export const TERMIOS_SIZE = 60;
const OFF_IFLAG = 0;
const OFF_OFLAG = 4;
const OFF_CFLAG = 8;
const OFF_LFLAG = 12;
const OFF_CC = 17;
const VTIME = 5;
const VMIN = 6;

// ---- c_iflag --------------------------------------------------------------------
const IGNBRK = 0o1;
const BRKINT = 0o2;
const IGNPAR = 0o4;
const PARMRK = 0o10;
const INPCK = 0o20;
const ISTRIP = 0o40;
const INLCR = 0o100;
const IGNCR = 0o200;
const ICRNL = 0o400;
const IXON = 0o2000;
const IXANY = 0o4000;
const IXOFF = 0o10000;

// ---- c_oflag / c_lflag ----------------------------------------------------------
const OPOST = 0o1;
const ISIG = 0o1;
const ICANON = 0o2;
const ECHO = 0o10;
const IEXTEN = 0o100000;

// ---- c_cflag --------------------------------------------------------------------
const CBAUD = 0o10017;
const CSIZE = 0o60;
const CS7 = 0o40;
const CS8 = 0o60;
const CSTOPB = 0o100;
const CREAD = 0o200;
const PARENB = 0o400;
const PARODD = 0o1000;
const CLOCAL = 0o4000;
const CMSPAR = 0o10000000000;
const CRTSCTS = 0o20000000000;

/** Baud rate -> the B* constant cfsetspeed takes (glibc termios-baud.h). */
const BAUD_CONSTANTS: ReadonlyMap<number, number> = new Map([
  [1200, 0o11],
  [2400, 0o13],
  [4800, 0o14],
  [9600, 0o15],
  [19200, 0o16],
  [38400, 0o17],
  [57600, 0o10001],
  [115200, 0o10002],
]);
export const SUPPORTED_BAUD_RATES: readonly number[] = [...BAUD_CONSTANTS.keys()];

// ---- ioctl / tcsetattr / tcflush -------------------------------------------------
const TCSANOW = 0;
const TCIOFLUSH = 2;
const TIOCEXCL = 0x540c;
const TIOCNXCL = 0x540d;

export type Parity = "none" | "even" | "odd";

export interface LineSettings {
  baudRate: number;
  dataBits: 7 | 8;
  parity: Parity;
  stopBits: 1 | 2;
}

/** What the kernel holds for a tty right now (read back after tcsetattr). */
export interface AppliedSettings extends LineSettings {
  /** PARODD, which a pty keeps even though it drops PARENB. */
  parodd: boolean;
  raw: boolean;
  clocal: boolean;
  cread: boolean;
  rtscts: boolean;
  xonxoff: boolean;
  inpck: boolean;
  vmin: number;
  vtime: number;
}

/** An error of the serial layer, with an errno-style code (ENOENT, ENOTTY, EIO, ...). */
export class SerialError extends Error {
  readonly code: string;
  readonly path: string;
  constructor(code: string, path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = "SerialError";
    this.code = code;
    this.path = path;
  }
}

// ---- libc, loaded once, on first use --------------------------------------------
function loadLibc() {
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) {
    throw new SerialError(
      "EPLATFORM",
      "libc",
      `serial ports need Linux with glibc on x86-64 or arm64 (this is ${process.platform}/${process.arch})`,
    );
  }
  try {
    return dlopen("libc.so.6", {
      tcgetattr: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      tcsetattr: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      cfmakeraw: { args: [FFIType.ptr], returns: FFIType.void },
      cfsetspeed: { args: [FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
      tcflush: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      // ioctl is variadic; with integer arguments only, the x86-64 and AAPCS64
      // (Linux) calling conventions pass them like fixed arguments.
      ioctl: { args: [FFIType.i32, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
      __errno_location: { args: [], returns: FFIType.ptr },
    }).symbols;
  } catch (error) {
    throw new SerialError(
      "ELIBC",
      "libc.so.6",
      `cannot load glibc (serial ports need Linux with glibc): ${(error as Error).message}`,
    );
  }
}

let libcSymbols: ReturnType<typeof loadLibc> | undefined;
function libc(): ReturnType<typeof loadLibc> {
  libcSymbols ??= loadLibc();
  return libcSymbols;
}

const ERRNO_NAMES: Record<number, string> = {
  1: "EPERM",
  2: "ENOENT",
  5: "EIO",
  6: "ENXIO",
  9: "EBADF",
  13: "EACCES",
  16: "EBUSY",
  19: "ENODEV",
  22: "EINVAL",
  25: "ENOTTY",
};

function fail(path: string, what: string): never {
  const where = libc().__errno_location();
  const errno = where === null ? 0 : read.i32(where, 0);
  const code = ERRNO_NAMES[errno] ?? `ERRNO${errno}`;
  throw new SerialError(code, path, `${what} failed (${code})`);
}

// ---- the settings ----------------------------------------------------------------
export function validateLineSettings(settings: LineSettings): void {
  if (!BAUD_CONSTANTS.has(settings.baudRate)) {
    throw new SerialError(
      "EINVAL",
      "settings",
      `baud rate ${settings.baudRate} is not supported (supported: ${SUPPORTED_BAUD_RATES.join(", ")})`,
    );
  }
  if (settings.dataBits !== 7 && settings.dataBits !== 8) {
    throw new SerialError("EINVAL", "settings", `data bits must be 7 or 8, not ${settings.dataBits}`);
  }
  if (settings.parity !== "none" && settings.parity !== "even" && settings.parity !== "odd") {
    throw new SerialError("EINVAL", "settings", `parity must be none, even or odd, not ${settings.parity}`);
  }
  if (settings.stopBits !== 1 && settings.stopBits !== 2) {
    throw new SerialError("EINVAL", "settings", `stop bits must be 1 or 2, not ${settings.stopBits}`);
  }
}

/**
 * Turns a termios buffer (as read by tcgetattr) into the one for a raw Modbus RTU
 * line with these settings. Pure apart from libc's cfmakeraw and cfsetspeed.
 *
 * `pseudoTerminal`: measured on Linux 6.18, a pty keeps CS8 without PARENB
 * whatever tcsetattr asks (stty reports "unable to perform all requested
 * operations"), and a tcsetattr that changes only those bits fails with EINVAL;
 * pyserial fails the same way. On a pty the buffer therefore keeps CS8 without
 * PARENB; everything else (speed, PARODD, INPCK, CSTOPB, flow control,
 * VMIN/VTIME) is set as on a real port.
 */
export function buildLineTermios(base: Uint8Array, settings: LineSettings, pseudoTerminal = false): Buffer {
  if (base.length !== TERMIOS_SIZE) throw new Error(`a termios buffer is ${TERMIOS_SIZE} bytes, not ${base.length}`);
  validateLineSettings(settings);
  const c = libc();
  const t = Buffer.from(base);
  c.cfmakeraw(ptr(t));
  if (c.cfsetspeed(ptr(t), BAUD_CONSTANTS.get(settings.baudRate)!) !== 0) {
    throw new SerialError("EINVAL", "settings", `cfsetspeed refused ${settings.baudRate}`);
  }

  let cflag = t.readUInt32LE(OFF_CFLAG);
  cflag &= ~(CSIZE | PARENB | PARODD | CMSPAR | CSTOPB | CRTSCTS);
  cflag |= settings.dataBits === 7 && !pseudoTerminal ? CS7 : CS8;
  if (settings.parity !== "none" && !pseudoTerminal) cflag |= PARENB;
  if (settings.parity === "odd") cflag |= PARODD;
  if (settings.stopBits === 2) cflag |= CSTOPB;
  cflag |= CLOCAL | CREAD;
  t.writeUInt32LE(cflag >>> 0, OFF_CFLAG);

  let iflag = t.readUInt32LE(OFF_IFLAG);
  iflag &= ~(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON | IXOFF | IXANY | IGNPAR | INPCK);
  // With parity on, check it: a byte with a parity error is read as 0x00 (neither
  // IGNPAR nor PARMRK), which fails the frame's CRC instead of passing silently.
  if (settings.parity !== "none") iflag |= INPCK;
  t.writeUInt32LE(iflag >>> 0, OFF_IFLAG);

  // Non-canonical reads: a byte is readable as soon as it arrives (VMIN 1, no
  // inter-byte timer). The fd is non-blocking and polled, so reads never wait here.
  t[OFF_CC + VMIN] = 1;
  t[OFF_CC + VTIME] = 0;
  return t;
}

/** Decodes a termios buffer into settings and the flags that matter here. */
export function decodeTermios(t: Uint8Array): AppliedSettings {
  const view = Buffer.from(t.buffer, t.byteOffset, t.byteLength);
  const iflag = view.readUInt32LE(OFF_IFLAG);
  const oflag = view.readUInt32LE(OFF_OFLAG);
  const cflag = view.readUInt32LE(OFF_CFLAG);
  const lflag = view.readUInt32LE(OFF_LFLAG);
  const speed = cflag & CBAUD;
  let baudRate = 0;
  for (const [rate, constant] of BAUD_CONSTANTS) if (constant === speed) baudRate = rate;
  return {
    baudRate,
    dataBits: (cflag & CSIZE) === CS7 ? 7 : 8,
    parity: (cflag & PARENB) === 0 ? "none" : (cflag & PARODD) !== 0 ? "odd" : "even",
    stopBits: (cflag & CSTOPB) !== 0 ? 2 : 1,
    parodd: (cflag & PARODD) !== 0,
    raw: (lflag & (ICANON | ECHO | ISIG | IEXTEN)) === 0 && (oflag & OPOST) === 0,
    clocal: (cflag & CLOCAL) !== 0,
    cread: (cflag & CREAD) !== 0,
    rtscts: (cflag & CRTSCTS) !== 0,
    xonxoff: (iflag & (IXON | IXOFF)) !== 0,
    inpck: (iflag & INPCK) !== 0,
    vmin: view[OFF_CC + VMIN]!,
    vtime: view[OFF_CC + VTIME]!,
  };
}

/** Unix98 pty slaves (/dev/pts/N) have device majors 136-143. */
function isPseudoTerminal(fd: number): boolean {
  const rdev = fs.fstatSync(fd).rdev;
  const major = ((rdev >> 8) & 0xfff) | (Math.floor(rdev / 2 ** 32) & ~0xfff);
  return major >= 136 && major <= 143;
}

/** Reads back what the kernel holds for an open tty. */
export function readSettings(fd: number, path = `fd ${fd}`): AppliedSettings {
  const t = Buffer.alloc(TERMIOS_SIZE);
  if (libc().tcgetattr(fd, ptr(t)) !== 0) fail(path, "tcgetattr");
  return decodeTermios(t);
}

/** An open, configured tty. */
export interface OpenTty {
  fd: number;
  /** A pseudo-terminal (test rigs): the kernel keeps it at CS8 without parity. */
  pseudoTerminal: boolean;
  /** What the kernel holds after configuration. */
  applied: AppliedSettings;
}

/**
 * Opens a serial tty and configures it for Modbus RTU. The fd stays non-blocking,
 * for a reader polled by the event loop (see serial-port.ts) and fs.writeSync.
 *
 * O_NONBLOCK also keeps the open from waiting for carrier on a modem-control line
 * before CLOCAL is set.
 */
export function openTty(path: string, settings: LineSettings): OpenTty {
  validateLineSettings(settings);
  const c = libc();
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new SerialError(e.code ?? "EOPEN", path, `cannot open: ${e.message}`);
  }
  try {
    const current = Buffer.alloc(TERMIOS_SIZE);
    if (c.tcgetattr(fd, ptr(current)) !== 0) fail(path, "tcgetattr (is it a serial port?)");
    const pseudoTerminal = isPseudoTerminal(fd);
    // Exclusive: another non-root process opening the same port gets EBUSY.
    c.ioctl(fd, TIOCEXCL, 0);
    const wanted = buildLineTermios(current, settings, pseudoTerminal);
    if (c.tcsetattr(fd, TCSANOW, ptr(wanted)) !== 0) fail(path, "tcsetattr");
    // tcsetattr succeeds if any one change took; check that every one did.
    const applied = readSettings(fd, path);
    const expected = decodeTermios(wanted);
    for (const key of [
      "baudRate",
      "dataBits",
      "parity",
      "parodd",
      "stopBits",
      "inpck",
      "rtscts",
      "xonxoff",
      "raw",
    ] as const) {
      if (applied[key] !== expected[key]) {
        throw new SerialError(
          "EINVAL",
          path,
          `the driver did not accept ${key} ${expected[key]} (it holds ${applied[key]})`,
        );
      }
    }
    c.tcflush(fd, TCIOFLUSH);
    return { fd, pseudoTerminal, applied };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/** Drops the exclusive lock and closes the fd. Errors are ignored: the device may be gone. */
export function closeTty(fd: number): void {
  if (fd < 0) return;
  libc().ioctl(fd, TIOCNXCL, 0);
  try {
    fs.closeSync(fd);
  } catch {
    // already gone
  }
}
