/**
 * The `mqtt` section's checks that a schema cannot make (docs/config.md, "mqtt"):
 * the broker URL's scheme and host, one way to give the password, and the files it
 * names readable now, so `config check` and `serve` refuse a link that cannot work
 * rather than retrying it forever. The password itself is never repeated back.
 */
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { describeValue } from "../lib/problem-wording.ts";
import type { Report } from "./registries.ts";
import { isRecord } from "./values.ts";

export function checkMqtt(mqtt: unknown, report: Report): void {
  if (!isRecord(mqtt)) return;
  if (typeof mqtt.url === "string") checkBrokerUrl(mqtt.url, report);
  if (mqtt.password !== undefined && mqtt.password_file !== undefined) {
    report(["mqtt", "password"], "give the password once: password or password_file, not both");
  }
  if (typeof mqtt.password_file === "string") {
    const path = ["mqtt", "password_file"];
    if (checkReadableFile(mqtt.password_file, path, report) && readPasswordFile(mqtt.password_file) === "") {
      report(path, `${mqtt.password_file} is empty; its first line is the password`);
    }
  }
  if (typeof mqtt.ca_file === "string") checkReadableFile(mqtt.ca_file, ["mqtt", "ca_file"], report);
  if ((mqtt.password !== undefined || mqtt.password_file !== undefined) && mqtt.username === undefined) {
    report(["mqtt", "username"], "is required with a password (MQTT sends a password only with a user name)");
  }
}

function checkBrokerUrl(text: string, report: Report): void {
  const path = ["mqtt", "url"];
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^mqtts?:\/\/[^/]/i.test(text) || url.hostname === "") {
    report(path, `must be mqtt://host[:port] or mqtts://host[:port] (TLS); got ${describeValue(text)}`);
  } else if (url.username !== "" || url.password !== "") {
    // A password in the URL would be logged with it: it belongs in password_file.
    report(path, "must not carry a user name or password; use mqtt.username and mqtt.password_file");
  } else if ((url.pathname !== "" && url.pathname !== "/") || url.search !== "" || url.hash !== "") {
    report(path, `must not have a path, query or fragment; got ${describeValue(text)}`);
  }
}

/** Whether `file` is a regular file this process can read; reports why not. */
function checkReadableFile(file: string, path: string[], report: Report): boolean {
  try {
    if (!statSync(file).isFile()) {
      report(path, `${file} is not a file`);
      return false;
    }
    accessSync(file, constants.R_OK);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    report(path, code === "ENOENT" ? `${file} does not exist` : `${file} cannot be read (${code ?? "error"})`);
    return false;
  }
}

/** The password file's first line, without its line end (as `mosquitto_passwd` users write it). */
export function readPasswordFile(file: string): string {
  return (readFileSync(file, "utf8").split(/\r?\n/)[0] ?? "").trimEnd();
}
