/**
 * `PUT /edge/v1/inventory` (docs/fleet.md, "Forwarding"): the gateways, Modbus
 * devices and registers a site polls, with the stable ids the site decided, stored
 * in the site's organisation. A gateway of another site, or of the central's own
 * config, is refused (409) and nothing changes.
 */
import { Elysia, type Static, t } from "elysia";
import { CodedError } from "../../lib/errors.ts";
import type { InventoryGateway } from "../../lib/inventory.ts";
import type { Store } from "../../store/index.ts";
import { GatewayOwnedElsewhereError } from "../../store/inventory.ts";
import { authenticateSite } from "./auth.ts";

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);
const uuid = t.String({ format: "uuid" });

const SiteRegister = t.Object({
  id: uuid,
  name: t.String({ minLength: 1 }),
  address: t.Integer({ minimum: 0, maximum: 65_535 }),
  functionCode: nullable(t.Integer({ minimum: 1, maximum: 4 })),
  dataType: t.String({ minLength: 1 }),
  unit: nullable(t.String()),
  scaleFactor: nullable(t.Number()),
  isWritable: t.Boolean(),
  writeMin: nullable(t.Number()),
  writeMax: nullable(t.Number()),
  description: nullable(t.String()),
});

const SiteModbusDevice = t.Object({
  id: uuid,
  name: nullable(t.String()),
  slaveId: t.Integer({ minimum: 0, maximum: 255 }),
  protocol: t.Union([t.Literal("rtu"), t.Literal("tcp")]),
  ipAddress: nullable(t.String()),
  port: nullable(t.Integer({ minimum: 1, maximum: 65_535 })),
  pollIntervalMs: nullable(t.Integer({ minimum: 1 })),
  storageIntervalMs: t.Optional(t.Integer({ minimum: 1000 })),
  template: nullable(t.Object({ id: uuid, brand: t.String(), model: t.String() })),
  registers: t.Array(SiteRegister),
});

const SiteGateway = t.Object({
  id: uuid,
  serial: t.String({ minLength: 1, maxLength: 64 }),
  name: t.String({ minLength: 1 }),
  customer: nullable(t.String()),
  heartbeatMs: t.Integer({ minimum: 1 }),
  firmwareVer: nullable(t.String()),
  ipEth: nullable(t.String()),
  ipWifi: nullable(t.String()),
  ip4g: nullable(t.String()),
  signal4g: nullable(t.Number()),
  modbusDevices: t.Array(SiteModbusDevice),
});

const SiteInventory = t.Object({ gateways: t.Array(SiteGateway, { maxItems: 10_000 }) });

// The wire shape is the inventory's own (lib/inventory.ts): this line fails to compile when they drift apart.
const sameShape: (gateway: Static<typeof SiteGateway>) => InventoryGateway = (gateway) => gateway;

export function edgeInventoryRoutes(store: Store) {
  return new Elysia().put(
    "/edge/v1/inventory",
    async ({ request, body }) => {
      const site = await authenticateSite(store, request);
      try {
        await store.inventory.syncSite(
          { orgId: site.orgId, name: site.name },
          body.gateways.map(sameShape),
          Date.now(),
        );
      } catch (error) {
        if (error instanceof GatewayOwnedElsewhereError) throw new CodedError("conflict", `${error.message}.`);
        throw error;
      }
      const registers = body.gateways.reduce(
        (sum, gateway) => sum + gateway.modbusDevices.reduce((count, device) => count + device.registers.length, 0),
        0,
      );
      return Response.json({ gateways: body.gateways.length, registers });
    },
    { body: SiteInventory },
  );
}
