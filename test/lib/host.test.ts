import { describe, expect, test } from "bun:test";
import type { NetworkInterfaceInfo } from "node:os";
import { hostAddresses, withHostFacts } from "../../src/lib/host.ts";

const v4 = (address: string, internal = false): NetworkInterfaceInfo =>
  ({
    address,
    family: "IPv4",
    internal,
    netmask: "255.255.255.0",
    mac: "00:00:00:00:00:00",
    cidr: null,
  }) as NetworkInterfaceInfo;
const v6 = (address: string): NetworkInterfaceInfo =>
  ({
    address,
    family: "IPv6",
    internal: false,
    netmask: "ffff::",
    mac: "00:00:00:00:00:00",
    cidr: null,
    scopeid: 0,
  }) as NetworkInterfaceInfo;

describe("hostAddresses", () => {
  test("classifies wired, wireless and cellular interfaces by name, preferring IPv4", () => {
    expect(
      hostAddresses({
        lo: [v4("127.0.0.1", true)],
        enp3s0: [v6("fe80::1"), v4("192.168.1.20")],
        wlan0: [v4("10.0.0.7")],
        wwan0: [v4("100.64.3.9")],
        docker0: [v4("172.17.0.1")],
      }),
    ).toEqual({ ipEth: "192.168.1.20", ipWifi: "10.0.0.7", ip4g: "100.64.3.9" });
  });

  test("an interface kind that is absent or has only internal addresses is null", () => {
    expect(hostAddresses({ lo: [v4("127.0.0.1", true)], eth0: [v4("127.0.0.2", true)] })).toEqual({
      ipEth: null,
      ipWifi: null,
      ip4g: null,
    });
  });
});

test("withHostFacts fills only what the config left open", () => {
  const gateway = {
    id: "g",
    serial: "S",
    name: "n",
    customer: null,
    heartbeatMs: 1,
    firmwareVer: null,
    ipEth: "10.9.9.9",
    ipWifi: null,
    ip4g: null,
    signal4g: null,
    modbusDevices: [],
  };
  const filled = withHostFacts(
    { organizations: [{ id: "o", key: "o", name: "o", writesEnabled: false, customers: [], gateways: [gateway] }] },
    { ipEth: "192.168.1.20", ipWifi: "10.0.0.7", ip4g: null },
    "1.2.3",
  );
  expect(filled.organizations[0]?.gateways[0]).toMatchObject({
    firmwareVer: "1.2.3",
    ipEth: "10.9.9.9",
    ipWifi: "10.0.0.7",
    ip4g: null,
  });
});
