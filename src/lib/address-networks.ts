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
  const expect = "an IPv4 or IPv6 network as address/prefix, such as 10.0.0.0/8, 192.168.1.20/32 or fd00::/64";
  // A zone (`fe80::1%eth0`) names an interface, not a network.
  if (version === 0 || extra !== undefined || address.includes("%"))
    return { problem: `must be ${expect}; got "${text}"` };
  const family = version === 4 ? "ipv4" : "ipv6";
  const bits = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: bits, family };
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= bits)) {
    return { problem: `has prefix "${prefixText}"; an ${family === "ipv4" ? "IPv4" : "IPv6"} prefix is 0..${bits}` };
  }
  // A network with host bits set is most likely a typo for a host or for its network:
  // refused for both families alike, naming both readings (docs/config.md).
  const base = networkBase(address, prefix, family);
  if (base !== canonical(address, family)) {
    return {
      problem: `has host bits set: ${text} is not a network (did you mean ${base}/${prefix}, or ${address}/${bits}?)`,
    };
  }
  return { address, prefix, family };
}

/** The network address of `address/prefix`, written as `canonical` writes an address. */
function networkBase(address: string, prefix: number, family: "ipv4" | "ipv6"): string {
  if (family === "ipv4") {
    const value = ipv4Value(address);
    const mask = prefix === 0 ? 0 : (0xffff_ffff << (32 - prefix)) >>> 0;
    return ipv4Text((value & mask) >>> 0);
  }
  const groups = ipv6Groups(address).map((group, i) => {
    const kept = Math.min(16, Math.max(0, prefix - 16 * i));
    return group & ((0xffff << (16 - kept)) & 0xffff);
  });
  return canonical(groups.map((group) => group.toString(16)).join(":"), "ipv6");
}

/** An address as one text per address: IPv4 as written, IPv6 lower case with the longest zero run as `::` (RFC 5952, as URLs write it). */
function canonical(address: string, family: "ipv4" | "ipv6"): string {
  return family === "ipv4" ? address : new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

function ipv4Value(address: string): number {
  return address.split(".").reduce((sum, part) => sum * 256 + Number(part), 0);
}

function ipv4Text(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join(".");
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail as two groups). */
function ipv6Groups(address: string): number[] {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  const text =
    dotted === undefined
      ? address
      : `${address.slice(0, -dotted.length)}${((ipv4Value(dotted) >>> 16) & 0xffff).toString(16)}:${(ipv4Value(dotted) & 0xffff).toString(16)}`;
  const [head = "", tail] = text.split("::");
  const groupsOf = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)));
  const left = groupsOf(head);
  const right = tail === undefined ? [] : groupsOf(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
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
