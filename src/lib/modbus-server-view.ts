/**
 * A gateway's Modbus TCP server as the API's gateway detail shows it (docs/api.md
 * section 2.5): the server keeps the counts (src/modbus-server/stats.ts), the HTTP
 * door reads them without knowing the server.
 */
export const modbusServerResults = ["cache", "bus", "exception", "refused"] as const;
export type ModbusServerResult = (typeof modbusServerResults)[number];

export interface ModbusServerView {
  port: number;
  clientsConnected: number;
  requests: Record<ModbusServerResult, number>;
}

/** The gateway's server by the gateway's public id, or null when it runs none. */
export type ModbusServerViewReader = (gatewayId: string) => ModbusServerView | null;
