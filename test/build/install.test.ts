/**
 * install.sh with --root (docs/install.md): every file under a temp root, and the
 * commands it would run as root (useradd, chown, systemctl) printed instead. Checks
 * the unit, the user plan, the config and data directory, that a second run changes
 * nothing, that an upgrade keeps data and config, that a config failing the check
 * stops the install, and that --uninstall keeps data and config unless --purge.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const repoRoot = join(import.meta.dir, "..", "..");
const hostTarget = process.arch === "arm64" ? "linux-arm64" : "linux-x64";
const cleanEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" };
const exampleConfig = readFileSync(join(repoRoot, "fieldhub.example.yaml"), "utf8");
const analyze = Bun.which("systemd-analyze");
/** Why the systemd check cannot run here (in the test's name), or "" when it can. */
const systemdAnalyzeMissing =
  analyze === null
    ? " (skipped: systemd-analyze is not installed; Debian: apt-get install systemd)"
    : Bun.spawnSync([analyze, "--help"]).stdout.toString().includes("--offline")
      ? ""
      : " (skipped: this systemd-analyze has no offline security check)";

let work: string;
/** Two builds that differ only in their commit: an install and an upgrade. */
let exeV1: string;
let exeV2: string;

function run(cmd: string[], env: Record<string, string> = cleanEnv) {
  const result = Bun.spawnSync(cmd, { cwd: work, env, stdout: "pipe", stderr: "pipe", timeout: 120_000 });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

function build(commit: string): string {
  const out = join(work, `dist-${commit}`);
  const result = run(["bash", join(repoRoot, "scripts/build"), "--target", hostTarget, "--out", out], {
    ...cleanEnv,
    FIELDHUB_COMMIT: commit,
  });
  if (result.code !== 0) throw new Error(`scripts/build failed:\n${result.stdout}\n${result.stderr}`);
  return join(out, `fieldhub-${hostTarget}`);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "fieldhub-install-test-"));
  exeV1 = build("install1");
  exeV2 = build("install2");
});

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

function install(root: string, ...args: string[]) {
  return run(["bash", join(repoRoot, "install.sh"), "--root", root, ...args]);
}

function mode(path: string): string {
  return (statSync(path).mode & 0o7777).toString(8);
}

/** Every path under root with its mode, size, mtime and content: what a rerun must not change. */
function snapshot(root: string): string[] {
  const entries: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = statSync(path);
      const digest = stat.isFile() ? Bun.hash(readFileSync(path)).toString(16) : "dir";
      entries.push(`${path.slice(root.length)} ${mode(path)} ${stat.size} ${stat.mtimeMs} ${digest}`);
      if (stat.isDirectory()) walk(path);
    }
  };
  walk(root);
  return entries;
}

/** The unit's settings: key -> every value it is given. */
function unitSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match === null) continue;
    settings.set(match[1] as string, [...(settings.get(match[1] as string) ?? []), match[2] as string]);
  }
  return settings;
}

describe("install.sh --root", () => {
  let root: string;
  let firstRun: ReturnType<typeof run>;

  beforeAll(() => {
    root = join(work, "root");
    firstRun = install(root, exeV1);
  });

  test("installs the executable, the example config and the data directory with their modes", () => {
    expect(firstRun.stderr).toBe("");
    expect(firstRun.code).toBe(0);
    const bin = join(root, "usr/local/bin/fieldhub");
    expect(readFileSync(bin).equals(readFileSync(exeV1))).toBe(true);
    expect(mode(bin)).toBe("755");
    expect(readFileSync(join(root, "etc/fieldhub/fieldhub.yaml"), "utf8")).toBe(exampleConfig);
    expect(mode(join(root, "etc/fieldhub/fieldhub.yaml"))).toBe("640");
    expect(mode(join(root, "etc/fieldhub"))).toBe("750");
    expect(statSync(join(root, "var/lib/fieldhub")).isDirectory()).toBe(true);
    expect(mode(join(root, "var/lib/fieldhub"))).toBe("750");
    expect(firstRun.stdout).toContain("installing fieldhub 0.1.0 (install1)");
  });

  test("prints the user and ownership plan and the systemctl calls instead of running them", () => {
    const out = firstRun.stdout;
    expect(out).toMatch(
      /would run \(if there is no user fieldhub\): useradd --system --user-group --home-dir \/var\/lib\/fieldhub --no-create-home --shell \/(usr\/)?sbin\/nologin --groups dialout fieldhub\n/,
    );
    expect(out).toContain("would run (if fieldhub is not in dialout): usermod --append --groups dialout fieldhub");
    expect(out).toContain("would run: chown fieldhub:fieldhub /var/lib/fieldhub\n");
    expect(out).toContain("would run: chown root:fieldhub /etc/fieldhub\n");
    expect(out).toContain("would run: chown root:fieldhub /etc/fieldhub/fieldhub.yaml\n");
    expect(out).toContain("would run: systemctl daemon-reload\n");
    expect(out).toContain("would run (if it is not enabled): systemctl enable fieldhub.service\n");
    expect(out).toContain("would run: systemctl restart fieldhub.service\n");
    // Nothing is run for real under --root.
    expect(out).not.toMatch(/^\s+\+ /m);
  });

  test("writes the hardened unit", () => {
    const path = join(root, "etc/systemd/system/fieldhub.service");
    expect(mode(path)).toBe("644");
    const unit = unitSettings(readFileSync(path, "utf8"));
    const one = (key: string) => {
      expect(unit.get(key)?.length).toBe(1);
      return unit.get(key)?.[0];
    };
    expect(one("ExecStart")).toBe(
      "/usr/local/bin/fieldhub serve --config /etc/fieldhub/fieldhub.yaml --data /var/lib/fieldhub",
    );
    // systemctl reload: SIGHUP, which serve answers by reloading its config (docs/config.md).
    expect(one("ExecReload")).toBe("/bin/kill -HUP $MAINPID");
    // JavaScriptCore told 64 MB of RAM collects before its heap doubles (docs/benchmarks.md, "Footprint").
    expect(one("Environment")).toBe("BUN_JSC_forceRAMSize=67108864");
    expect(one("Restart")).toBe("on-failure");
    expect(one("User")).toBe("fieldhub");
    expect(one("Group")).toBe("fieldhub");
    expect(one("SupplementaryGroups")).toBe("dialout");
    expect(one("ProtectSystem")).toBe("strict");
    expect(one("ReadWritePaths")).toBe("/var/lib/fieldhub");
    expect(one("ProtectHome")).toBe("yes");
    expect(one("PrivateTmp")).toBe("yes");
    expect(one("NoNewPrivileges")).toBe("yes");
    expect(one("DevicePolicy")).toBe("closed");
    expect(unit.get("DeviceAllow")).toEqual(["char-ttyS rw", "char-ttyUSB rw", "char-ttyACM rw"]);
    expect(one("KillSignal")).toBe("SIGTERM");
    expect(one("TimeoutStopSec")).toMatch(/^\d+$/);
    expect(one("LimitNOFILE")).toMatch(/^\d+$/);
    expect(one("WantedBy")).toBe("multi-user.target");
    // These would break fieldhub: the JIT needs writable executable memory, and
    // PrivateDevices hides the serial ports.
    expect(unit.has("MemoryDenyWriteExecute")).toBe(false);
    expect(unit.has("PrivateDevices")).toBe(false);
  });

  test.skipIf(systemdAnalyzeMissing !== "")(
    `systemd reads the unit without complaint (systemd-analyze security --offline)${systemdAnalyzeMissing}`,
    () => {
      const result = run([analyze!, "security", "--offline=yes", `--root=${root}`, "--no-pager", "fieldhub.service"]);
      expect(result.stderr).not.toMatch(/Unknown key|Unknown section|Failed to parse|Invalid|ignoring/i);
      const exposure = /Overall exposure level for fieldhub\.service: (\d+\.\d)/.exec(result.stdout);
      expect(exposure).not.toBeNull();
      expect(Number(exposure?.[1])).toBeLessThanOrEqual(4);
    },
  );

  test("a second run changes nothing", () => {
    const before = snapshot(root);
    const again = install(root, exeV1);
    expect(again.code).toBe(0);
    expect(snapshot(root)).toEqual(before);
    expect(again.stdout).toContain("fieldhub 0.1.0 (install1) is already installed");
    expect(again.stdout).toContain("unchanged");
    expect(again.stdout).toContain("kept the existing config");
    expect(again.stdout).not.toContain("would run: systemctl restart");
    expect(again.stdout).not.toContain("would run: systemctl daemon-reload");
  });

  test("an upgrade replaces the executable, keeps data and config, and restarts the service", () => {
    const config = join(root, "etc/fieldhub/fieldhub.yaml");
    const edited = exampleConfig.replace("name: My site", "name: Edited site");
    writeFileSync(config, edited);
    writeFileSync(join(root, "var/lib/fieldhub/fieldhub.db"), "data");
    const upgrade = install(root, exeV2);
    expect(upgrade.stderr).toBe("");
    expect(upgrade.code).toBe(0);
    expect(upgrade.stdout).toContain("upgrading fieldhub 0.1.0 (install1) to fieldhub 0.1.0 (install2)");
    expect(upgrade.stdout).toContain("would run: systemctl restart fieldhub.service\n");
    expect(readFileSync(join(root, "usr/local/bin/fieldhub")).equals(readFileSync(exeV2))).toBe(true);
    expect(readFileSync(config, "utf8")).toBe(edited);
    expect(readFileSync(join(root, "var/lib/fieldhub/fieldhub.db"), "utf8")).toBe("data");
  });

  test("a config that fails the check stops the install with its problems, changing nothing", () => {
    const config = join(root, "etc/fieldhub/fieldhub.yaml");
    const good = readFileSync(config, "utf8");
    writeFileSync(config, good.replace("port: 8080", "port: 70000"));
    const before = snapshot(root);
    const refused = install(root, exeV1);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("server.port: must be between 1 and 65535");
    expect(refused.stderr).toContain("nothing was changed");
    expect(refused.stdout).not.toContain("systemctl");
    expect(snapshot(root)).toEqual(before);
    writeFileSync(config, good);
  });

  test("--uninstall removes the unit and the executable, plans userdel, and keeps data and config", () => {
    const removed = install(root, "--uninstall");
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("would run: systemctl disable --now fieldhub.service\n");
    expect(removed.stdout).toContain("would run: userdel fieldhub\n");
    expect(existsSync(join(root, "etc/systemd/system/fieldhub.service"))).toBe(false);
    expect(existsSync(join(root, "usr/local/bin/fieldhub"))).toBe(false);
    expect(readFileSync(join(root, "var/lib/fieldhub/fieldhub.db"), "utf8")).toBe("data");
    expect(readFileSync(join(root, "etc/fieldhub/fieldhub.yaml"), "utf8")).toContain("Edited site");

    const twice = install(root, "--uninstall");
    expect(twice.code).toBe(0);
    expect(twice.stdout).toContain("already removed");

    // Installing again keeps the config that was left behind.
    const reinstall = install(root, exeV1);
    expect(reinstall.code).toBe(0);
    expect(reinstall.stdout).toContain("kept the existing config");
    expect(readFileSync(join(root, "etc/fieldhub/fieldhub.yaml"), "utf8")).toContain("Edited site");
  });

  test("--uninstall --purge removes data and config too", () => {
    const purged = install(root, "--uninstall", "--purge");
    expect(purged.code).toBe(0);
    expect(existsSync(join(root, "var/lib/fieldhub"))).toBe(false);
    expect(existsSync(join(root, "etc/fieldhub"))).toBe(false);
    expect(existsSync(join(root, "usr/local/bin/fieldhub"))).toBe(false);
  });
});

describe("install.sh finding its executable", () => {
  test("uses fieldhub-linux-<arch> next to itself when none is given", () => {
    const bundle = join(work, "bundle");
    const root = join(work, "root-bundle");
    Bun.spawnSync(["mkdir", "-p", bundle]);
    copyFileSync(join(repoRoot, "install.sh"), join(bundle, "install.sh"));
    copyFileSync(join(repoRoot, "fieldhub.example.yaml"), join(bundle, "fieldhub.example.yaml"));
    copyFileSync(exeV2, join(bundle, `fieldhub-${hostTarget}`));
    // The baseline build, if this CPU lacks AVX2, is preferred; here both are the same file.
    copyFileSync(exeV2, join(bundle, `fieldhub-${hostTarget}-baseline`));
    Bun.spawnSync([
      "chmod",
      "+x",
      join(bundle, `fieldhub-${hostTarget}`),
      join(bundle, `fieldhub-${hostTarget}-baseline`),
    ]);
    const result = run(["bash", join(bundle, "install.sh"), "--root", root]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`installing fieldhub 0.1.0 (install2) from ${bundle}/fieldhub-${hostTarget}`);
  });

  test("refuses what is not an executable, and unknown options", () => {
    const notExe = join(work, "not-an-executable");
    writeFileSync(notExe, "hello");
    const refused = run(["bash", join(repoRoot, "install.sh"), "--root", join(work, "root-bad"), notExe]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("not an executable");
    const wrong = run(["bash", join(repoRoot, "install.sh"), "--frobnicate"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Usage: install.sh");
  });
});
