/**
 * A server's counts, kept in memory for /metrics and the gateway's detail in the API
 * (docs/api.md section 2.5): requests by how they were answered, clients connected.
 * `cache`: from the words last read; `bus`: by the device through the bus (its
 * exceptions included); `exception`: by the server itself (1, 2, 3, 6, 10, 11);
 * `refused`: a connection refused (outside `allow`, past `max_connections`) or closed
 * for a malformed frame.
 */
import type { ModbusServerResult, ModbusServerView } from "../lib/modbus-server-view.ts";

export function createServerStats(port: number, observeLatency: (seconds: number) => void = () => {}) {
  const requests: Record<ModbusServerResult, number> = { cache: 0, bus: 0, exception: 0, refused: 0 };
  let clientsConnected = 0;
  return {
    answered(result: Exclude<ModbusServerResult, "refused">, seconds: number): void {
      requests[result]++;
      observeLatency(seconds);
    },
    refused(): void {
      requests.refused++;
    },
    connected(change: 1 | -1): void {
      clientsConnected += change;
    },
    view: (): ModbusServerView => ({ port, clientsConnected, requests: { ...requests } }),
  };
}
export type ServerStats = ReturnType<typeof createServerStats>;
