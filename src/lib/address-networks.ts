/**
 * Networks written as CIDRs (`10.0.0.0/8`, `fd00::/8`, or a bare address for one
 * host) and the check of a peer address against them. The config checks what is
 * written (config/rules.ts); the Modbus TCP server admits clients by it
 * (docs/config.md, `modbus_server.allow`). Node's BlockList does the matching, IPv4
 * peers seen as IPv4-mapped IPv6 (`::ffff:10.0.0.7`) included.
 */
import { BlockList, isIP } from "node:net";

export type Network = { address: string; prefix: number; family: "ipv4" | "ipv6" };

/** A network, or why the text is not one (for a config problem). */
export function parseNetwork(text: string): Network | { problem: string } {
  const [address = "", prefixText, extra] = text.split("/");
  const version = isIP(address);
  const expect = "an IPv4 or IPv6 network as address/prefix, such as 10.0.0.0/8 or 192.168.1.20/32";
  if (version === 0 || extra !== undefined) return { problem: `must be ${expect}; got "${text}"` };
  const family = version === 4 ? "ipv4" : "ipv6";
  const bits = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: bits, family };
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= bits)) {
    return { problem: `has prefix "${prefixText}"; an ${family === "ipv4" ? "IPv4" : "IPv6"} prefix is 0..${bits}` };
  }
  // A network with host bits set is most likely a typo for a host or for its network.
  const base = networkBase(address, prefix, family);
  if (base !== address && version === 4) {
    return {
      problem: `has host bits set: ${text} is not a network (did you mean ${base}/${prefix}, or ${address}/32?)`,
    };
  }
  return { address, prefix, family };
}

/** The IPv4 network address of `address/prefix` (IPv6 is left as written). */
function networkBase(address: string, prefix: number, family: "ipv4" | "ipv6"): string {
  if (family === "ipv6") return address;
  const value = address.split(".").reduce((sum, part) => sum * 256 + Number(part), 0);
  const mask = prefix === 0 ? 0 : (0xffff_ffff << (32 - prefix)) >>> 0;
  const base = (value & mask) >>> 0;
  return [24, 16, 8, 0].map((shift) => (base >>> shift) & 0xff).join(".");
}

/** Whether a peer address lies in one of the networks; `null` networks admit everyone. */
export function addressAdmitter(networks: readonly Network[] | null): (address: string) => boolean {
  if (networks === null) return () => true;
  const list = new BlockList();
  for (const { address, prefix, family } of networks) list.addSubnet(address, prefix, family);
  return (address) => {
    const version = isIP(address);
    if (version === 0) return false;
    return list.check(address, version === 4 ? "ipv4" : "ipv6");
  };
}
