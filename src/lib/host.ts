/**
 * Facts about the machine fieldhub runs on, which a gateway reports unless the
 * config sets them (product.md): its addresses on wired, wireless and cellular
 * interfaces, and fieldhub's version as the firmware.
 */
import { type NetworkInterfaceInfo, networkInterfaces } from "node:os";
import type { Inventory } from "./inventory.ts";

export interface HostAddresses {
  ipEth: string | null;
  ipWifi: string | null;
  ip4g: string | null;
}

// Linux interface names: classic (eth0, wlan0) and predictable (enp3s0, wlp2s0, wwan0).
const kinds: [keyof HostAddresses, RegExp][] = [
  ["ipEth", /^(eth|en)/],
  ["ipWifi", /^(wlan|wl)/],
  ["ip4g", /^(wwan|ppp|rmnet|usb)/],
];

export function hostAddresses(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): HostAddresses {
  const found: HostAddresses = { ipEth: null, ipWifi: null, ip4g: null };
  for (const name of Object.keys(interfaces).sort()) {
    const kind = kinds.find(([, pattern]) => pattern.test(name))?.[0];
    if (kind === undefined || found[kind] !== null) continue;
    const addresses = (interfaces[name] ?? []).filter((address) => !address.internal);
    // IPv4 first: it is what an integrator types into a SCADA or a browser.
    const chosen = addresses.find((address) => address.family === "IPv4") ?? addresses[0];
    if (chosen !== undefined) found[kind] = chosen.address;
  }
  return found;
}

/** Fills what the config left open with the host's facts. */
export function withHostFacts(inventory: Inventory, host: HostAddresses, firmwareVersion: string): Inventory {
  return {
    organizations: inventory.organizations.map((organization) => ({
      ...organization,
      gateways: organization.gateways.map((gateway) => ({
        ...gateway,
        firmwareVer: gateway.firmwareVer ?? firmwareVersion,
        ipEth: gateway.ipEth ?? host.ipEth,
        ipWifi: gateway.ipWifi ?? host.ipWifi,
        ip4g: gateway.ip4g ?? host.ip4g,
      })),
    })),
  };
}
