/**
 * The rules of a gateway's `modbus_server` that span fields (docs/config.md,
 * "gateways[].modbus_server"): each listening port used once in the file (the HTTP
 * server's included), networks in `allow` that are networks, `writes: true` only
 * with `allow`, and one device per unit id on a gateway that serves them. Like the
 * other checks they run on unchecked data: every look at a value checks its type.
 */
import { parseNetwork } from "../lib/address-networks.ts";
import type { FileIndex, GatewayEntry } from "./file-index.ts";
import { formatPath, type Path } from "./problems.ts";
import type { Report } from "./registries.ts";
import { defaults } from "./schema.ts";
import { isRecord, listOrEmpty } from "./values.ts";

export function checkModbusServers(data: Record<string, unknown>, index: FileIndex, report: Report): void {
  const httpPort = isRecord(data.server) && data.server.port !== undefined ? data.server.port : defaults.serverPort;
  const ports = new Map<number, Path>();
  if (typeof httpPort === "number") ports.set(httpPort, ["server", "port"]);
  for (const gateway of index.gateways) {
    const server = gateway.record.modbus_server;
    if (!isRecord(server)) continue;
    const path: Path = [...gateway.path, "modbus_server"];
    if (typeof server.port === "number" && Number.isInteger(server.port)) {
      const first = ports.get(server.port);
      if (first === undefined) ports.set(server.port, [...path, "port"]);
      else report([...path, "port"], `port ${server.port} is already used by ${formatPath(first)}`);
    }
    checkAllow(server, path, report);
    checkUnitIds(gateway, report);
  }
}

function checkAllow(server: Record<string, unknown>, path: Path, report: Report): void {
  if (server.writes === true && server.allow === undefined) {
    report(
      [...path, "writes"],
      "needs allow: with writes on, name the networks whose masters may write (allow: [10.0.0.0/8]); otherwise any address that reaches the port could",
    );
  }
  listOrEmpty(server.allow).forEach((entry, i) => {
    if (typeof entry !== "string" || entry === "") return;
    const network = parseNetwork(entry);
    if ("problem" in network) report([...path, "allow", i], network.problem);
  });
}

/** A client names a device by unit id alone, so two devices of one served gateway cannot share one. */
function checkUnitIds(gateway: GatewayEntry, report: Report): void {
  const seen = new Map<number, Path>();
  for (const device of gateway.devices) {
    const unitId = device.serverUnitId;
    if (unitId === undefined) continue;
    const first = seen.get(unitId);
    if (first === undefined) {
      seen.set(unitId, device.path);
      continue;
    }
    const written = device.record.server_unit_id !== undefined;
    report(
      [...device.path, "server_unit_id"],
      `${written ? `unit id ${unitId}` : `unit id ${unitId} (its slave_id)`} is also ${formatPath(first)}'s; ` +
        "each device of a gateway with modbus_server needs its own server_unit_id",
    );
  }
}
