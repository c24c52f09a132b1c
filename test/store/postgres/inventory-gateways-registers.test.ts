/**
 * Organisations, the inventory sync, gateways and registers: the same assertions
 * against the SQLite store and the PostgreSQL store (engines.ts), so both engines
 * keep the promises of src/store/{organizations,inventory,gateways,registers}.ts,
 * foreign keys included (a referenced row cannot be deleted on either).
 */
import { beforeAll, expect, test } from "bun:test";
import { deviceStatusEvent, modbusDeviceStatusEvent } from "../../../src/store/contract/event-types.ts";
import { describeOnBothEngines, type OpenDomains } from "./engines.ts";
import { ids, inventory } from "./inventory-fixture.ts";

const t0 = Date.UTC(2026, 5, 1);

describeOnBothEngines("organisations, inventory, gateways, registers", t0, (opened, engine) => {
  let store: OpenDomains;
  beforeAll(async () => {
    store = opened();
  });
  test("the organisations of the config are listed and found by key, with their write switch", async () => {
    expect((await store.organizations.list()).map((o) => [o.key, o.name])).toEqual([
      ["acme", "Acme"],
      ["beta", "Beta"],
    ]);
    const acme = await store.organizations.findByKey("acme");
    expect(acme?.name).toBe("Acme");
    expect(await store.organizations.findByKey("nobody")).toBeNull();
    expect(await store.organizations.writesEnabled(acme?.id ?? -1)).toBe(true);
    const beta = await store.organizations.findByKey("beta");
    expect(await store.organizations.writesEnabled(beta?.id ?? -1)).toBe(false);
  });

  test("gateways: listed most recently seen first, never seen last; filtered by status; paged with the total", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    expect((await store.gateways.list(acme, { limit: 10, offset: 0 })).rows.map((g) => g.name)).toEqual([
      "Alpha",
      "Bravo",
    ]);
    await store.gateways.setStatus(ids.gatewayB, { status: "online", lastSeen: t0 + 5000 });
    await store.gateways.setStatus(ids.gatewayA, { status: "offline", lastSeen: t0 + 1000, claimedAt: t0 });
    const listed = await store.gateways.list(acme, { limit: 10, offset: 0 });
    expect(listed.rows.map((g) => [g.name, g.status, g.lastSeen])).toEqual([
      ["Bravo", "online", t0 + 5000],
      ["Alpha", "offline", t0 + 1000],
    ]);
    expect(listed.total).toBe(2);
    expect(await store.gateways.list(acme, { status: "online", limit: 10, offset: 0 })).toMatchObject({
      rows: [{ name: "Bravo" }],
      total: 1,
    });
    expect(await store.gateways.list(acme, { limit: 1, offset: 1 })).toMatchObject({
      rows: [{ name: "Alpha" }],
      total: 2,
    });
    expect(await store.gateways.count(acme)).toBe(2);
  });

  test("a gateway is found by its public id in any letter case, with its customer, only in its organisation", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    const beta = (await store.organizations.findByKey("beta"))?.id ?? -1;
    const found = await store.gateways.find(acme, ids.gatewayA.toUpperCase());
    expect(found).toEqual({
      id: found?.id as number,
      uuid: ids.gatewayA,
      serial: "SN-A",
      name: "Alpha",
      status: "offline",
      firmwareVer: "1.2.3",
      ipEth: "10.0.0.2",
      ipWifi: null,
      ip4g: null,
      signal4g: null,
      lastSeen: t0 + 1000,
      createdAt: t0,
      claimedAt: t0,
      customerUuid: ids.customer,
      customerName: "North Ltd",
      customerCity: "Oslo",
    });
    expect(await store.gateways.find(beta, ids.gatewayA)).toBeNull();
    expect(await store.gateways.locate(acme, ids.gatewayA.toUpperCase())).toBe(found?.id as number);
    expect(await store.gateways.locate(beta, ids.gatewayA)).toBeNull();
    expect(await store.gateways.statusOf(ids.gatewayA)).toEqual({
      id: found?.id as number,
      serial: "SN-A",
      name: "Alpha",
      orgId: acme,
      status: "offline",
      lastSeen: t0 + 1000,
      edgeSite: null,
    });
  });

  test("Modbus devices in config order, with their template; found by public id", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    const gatewayId = (await store.gateways.locate(acme, ids.gatewayA)) ?? -1;
    const devices = await store.gateways.modbusDevices(gatewayId);
    expect(devices.map((d) => [d.uuid, d.name, d.slaveId, d.protocol, d.templateBrand, d.templateModel])).toEqual([
      [ids.deviceA1, "meter", 1, "tcp", "Acme", "M1"],
      [ids.deviceA2, null, 2, "rtu", null, null],
    ]);
    expect(devices[0]).toMatchObject({
      ipAddress: "10.0.0.9",
      port: 502,
      pollIntervalMs: 1000,
      templateUuid: ids.template,
    });
    expect(await store.gateways.findModbusDeviceId(gatewayId, ids.deviceA2.toUpperCase())).toBe(
      devices[1]?.id as number,
    );
    expect(await store.gateways.findModbusDeviceId(gatewayId, ids.deviceB1)).toBeNull();
  });

  test("a status change and its device event commit together; no last-seen given keeps the stored one", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    const gatewayId = (await store.gateways.locate(acme, ids.gatewayA)) ?? -1;
    const before = (await store.events(acme)).length;
    const gateway = { id: ids.gatewayA, serial: "SN-A", name: "Alpha", status: "offline" as const, lastSeen: t0 };
    const change = deviceStatusEvent(gateway, "online");
    if (change === null) throw new Error("online has an event");
    await store.gateways.changeStatus(gatewayId, "online", t0 + 9000, {
      orgId: acme,
      occurredAt: t0 + 9000,
      ...change,
    });
    await store.gateways.changeStatus(gatewayId, "error", null, null);
    expect(await store.gateways.statusOf(ids.gatewayA)).toMatchObject({ status: "error", lastSeen: t0 + 9000 });
    const events = await store.events(acme);
    expect(events.length).toBe(before + 1);
    expect(events.at(-1)).toMatchObject({ type: "device.online", data: change.data });
    await store.gateways.writeLastSeenAll([
      { gatewayId, at: t0 + 20_000 },
      { gatewayId, at: t0 + 15_000 },
    ]);
    expect((await store.gateways.statusOf(ids.gatewayA))?.lastSeen).toBe(t0 + 15_000);
  });

  test("a Modbus device's offline stands with its event until its online, across a reopen of the domain", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    const before = (await store.events(acme)).length;
    expect(await store.gateways.offlineAnnouncedDevices()).toEqual([]);
    const change = {
      gateway: { id: ids.gatewayA, serial: "SN-A", name: "Alpha" },
      device: { id: ids.deviceA2, name: null },
      health: "quarantined" as const,
      previousHealth: "ok" as const,
      lastError: "timeout after 1000 ms at 3:0",
      lastAnswerAt: t0,
    };
    const offline = modbusDeviceStatusEvent({ ...change, status: "offline" });
    await store.gateways.announceModbusDevice(ids.deviceA2, t0 + 5000, {
      orgId: acme,
      occurredAt: t0 + 5000,
      ...offline,
    });
    expect(await store.gateways.offlineAnnouncedDevices()).toEqual([ids.deviceA2]);
    const online = modbusDeviceStatusEvent({
      ...change,
      status: "online",
      health: "ok",
      previousHealth: "quarantined",
    });
    await store.gateways.announceModbusDevice(ids.deviceA2, null, { orgId: acme, occurredAt: t0 + 9000, ...online });
    expect(await store.gateways.offlineAnnouncedDevices()).toEqual([]);
    const events = (await store.events(acme)).slice(before);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ["modbus_device.offline", offline.data],
      ["modbus_device.online", online.data],
    ]);
  });

  test("registers: active ones in config order with latest values; one device's; ids, history views, contexts, catalog", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    const gatewayId = (await store.gateways.locate(acme, ids.gatewayA)) ?? -1;
    const listed = await store.registers.list(gatewayId);
    expect(listed.map((r) => r.uuid)).toEqual([ids.register(2), ids.register(1), ids.register(3), ids.register(4)]);
    expect(listed[1]).toEqual({
      id: listed[1]?.id as number,
      uuid: ids.register(1),
      modbusDeviceUuid: ids.deviceA1,
      modbusDeviceName: "meter",
      name: "r1",
      address: 101,
      functionCode: 3,
      dataType: "uint16",
      unit: null,
      scaleFactor: null,
      isWritable: true,
      writeMin: 0,
      writeMax: 50,
      description: null,
      latestRawValue: null,
      latestTs: null,
      latestText: null,
      pollIntervalMs: 1000,
      storageIntervalMs: 60_000,
      edgeSite: null,
    });
    const deviceA2 = (await store.gateways.findModbusDeviceId(gatewayId, ids.deviceA2)) ?? -1;
    expect((await store.registers.list(gatewayId, deviceA2)).map((r) => r.name)).toEqual(["r4"]);
    const r1 = listed[1]?.id as number;
    expect((await store.registers.idsOfGateway(gatewayId)).map((r) => r.uuid).sort()).toEqual(
      [1, 2, 3, 4].map(ids.register).sort(),
    );
    expect((await store.registers.allIds()).length).toBe(6);
    expect(await store.registers.historyRegister(gatewayId, ids.register(2))).toEqual({
      id: listed[0]?.id as number,
      uuid: ids.register(2),
      modbusDeviceUuid: ids.deviceA1,
      name: "r2",
      unit: "V",
      scaleFactor: 0.1,
    });
    expect(await store.registers.historyRegister(gatewayId, ids.register(5))).toBeNull();
    expect((await store.registers.historyRegisters(gatewayId)).length).toBe(4);
    const context = (await store.registers.contexts()).find((c) => c.uuid === ids.register(1));
    expect(context).toEqual({
      uuid: ids.register(1),
      name: "r1",
      unit: null,
      scaleFactor: null,
      deviceName: "meter",
      slaveId: 1,
      gatewayId,
      gatewayName: "Alpha",
      orgId: acme,
    });
    const catalog = (await store.registers.catalog()).find((c) => c.id === r1);
    expect(catalog).toEqual({
      id: r1,
      uuid: ids.register(1),
      name: "r1",
      unit: null,
      scaleFactor: null,
      deviceName: "meter",
      gatewaySerial: "SN-A",
      orgKey: "acme",
      storageIntervalMs: 60_000,
    });
  });

  test("latest values: set takes the value given last; a reading moves it only when newer (same time or older: kept)", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    const gatewayId = (await store.gateways.locate(acme, ids.gatewayA)) ?? -1;
    const [r2, r1] = (await store.registers.list(gatewayId)).map((r) => r.id) as [number, number];
    await store.setLatest([
      { registerId: r1, ts: t0 + 60_000, rawValue: 10 },
      { registerId: r1, ts: t0 + 30_000, rawValue: 11 }, // read last (a clock step back): it wins
      { registerId: r2, ts: t0 + 60_000, rawValue: 20 },
    ]);
    const latest = async () =>
      Object.fromEntries((await store.registers.list(gatewayId)).map((r) => [r.name, [r.latestTs, r.latestRawValue]]));
    expect(await latest()).toMatchObject({ r1: [t0 + 30_000, 11], r2: [t0 + 60_000, 20] });
    await store.record([{ registerId: r1, ts: t0 + 20_000, rawValue: 1 }]); // older
    await store.record([{ registerId: r2, ts: t0 + 60_000, rawValue: 2 }]); // same time
    expect(await latest()).toMatchObject({ r1: [t0 + 30_000, 11], r2: [t0 + 60_000, 20] });
    await store.record([{ registerId: r1, ts: t0 + 40_000, rawValue: 3 }]); // newer
    expect(await latest()).toMatchObject({ r1: [t0 + 40_000, 3] });
    // Only stored readings move it: a second already stored (here, earlier in the same batch) does not.
    await store.record([
      { registerId: r1, ts: t0 + 50_000, rawValue: 5 },
      { registerId: r1, ts: t0 + 50_500, rawValue: 6 },
    ]);
    expect(await latest()).toMatchObject({ r1: [t0 + 50_000, 5] });
    await store.record([{ registerId: r1, ts: t0 + 40_000, rawValue: 7 }]); // a resend of a stored second
    expect(await latest()).toMatchObject({ r1: [t0 + 50_000, 5] });
  });

  test.skipIf(engine.openTwin === undefined)(
    "PostgreSQL: latest values moved by record reach another process within a second, without persistLatest; a value set later wins",
    async () => {
      const twin = await (engine.openTwin as NonNullable<typeof engine.openTwin>)(store);
      try {
        const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
        const gatewayId = (await store.gateways.locate(acme, ids.gatewayA)) ?? -1;
        const r3 = (await store.registers.list(gatewayId))[2]?.id as number;
        await store.recordUnwritten?.([{ registerId: r3, ts: t0 + 70_000, rawValue: 33 }]);
        const seen = async () => (await twin.registers.list(gatewayId))[2]?.latestTs;
        const deadline = Date.now() + 3000;
        while ((await seen()) !== t0 + 70_000 && Date.now() < deadline) await Bun.sleep(50);
        expect((await twin.registers.list(gatewayId))[2]).toMatchObject({
          latestTs: t0 + 70_000,
          latestRawValue: 33,
        });
        // A value set after a record replaces what that record moved, also once the pending values are written.
        await store.recordUnwritten?.([{ registerId: r3, ts: t0 + 90_000, rawValue: 1 }]);
        await store.setLatest([{ registerId: r3, ts: t0 + 85_000, rawValue: 2 }]);
        await Bun.sleep(1200);
        expect((await twin.registers.list(gatewayId))[2]).toMatchObject({
          latestTs: t0 + 85_000,
          latestRawValue: 2,
        });
      } finally {
        await twin.close();
      }
    },
  );

  test("string registers' texts: recorded in one batch (the last given wins) and read back by id", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    const gatewayId = (await store.gateways.locate(acme, ids.gatewayA)) ?? -1;
    const [r2, r1] = (await store.registers.list(gatewayId)).map((r) => r.id) as [number, number];
    await store.registers.recordTexts([
      { registerId: r1, text: "first" },
      { registerId: r2, text: "two" },
      { registerId: r1, text: "second" },
    ]);
    expect(await store.registers.latestTexts()).toEqual(
      new Map([
        [r1, "second"],
        [r2, "two"],
      ]),
    );
    expect((await store.registers.list(gatewayId)).find((r) => r.id === r1)?.latestText).toBe("second");
  });

  test("scale factors read from the devices become the registers' scale_factor (the last given wins)", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    const gatewayId = (await store.gateways.locate(acme, ids.gatewayA)) ?? -1;
    const [r2, r1] = (await store.registers.list(gatewayId)).map((r) => r.id) as [number, number];
    await store.registers.recordScaleFactors([
      { registerId: r1, scaleFactor: 10 },
      { registerId: r2, scaleFactor: 0.01 },
      { registerId: r1, scaleFactor: 0.1 },
    ]);
    const listed = await store.registers.list(gatewayId);
    expect(listed.find((r) => r.id === r1)?.scaleFactor).toBe(0.1);
    expect(listed.find((r) => r.id === r2)?.scaleFactor).toBe(0.01);
    const history = await store.registers.historyRegisters(gatewayId);
    expect(history.find((r) => r.id === r1)?.scaleFactor).toBe(0.1);

    // A sync keeps a factor read from the device (scaleFactorFromDevice) and sets the others from the config.
    const synced = inventory();
    const device = synced.organizations[0]?.gateways[0]?.modbusDevices[0];
    const first = device?.registers[0];
    if (first === undefined) throw new Error("fixture changed");
    // As the config gives it: no scale_factor beside scale_factor_register (register-rules.ts).
    first.scaleFactorFromDevice = true;
    first.scaleFactor = null;
    await store.inventory.sync(synced, t0 + 3);
    const after = await store.registers.list(gatewayId);
    expect(after.find((r) => r.id === r2)?.scaleFactor).toBe(0.01);
    expect(after.find((r) => r.id === r1)?.scaleFactor).toBeNull();

    // An inventory that brings a factor read from the device (a site's, docs/fleet.md "Forwarding") sets it.
    first.scaleFactor = 0.001;
    await store.inventory.sync(synced, t0 + 4);
    expect((await store.registers.list(gatewayId)).find((r) => r.id === r2)?.scaleFactor).toBe(0.001);
    expect((await store.registers.allIds()).find((r) => r.id === r2)?.scaleFactor).toBe(0.001);
  });

  test.skipIf(engine.openTwin === undefined)(
    "PostgreSQL: two processes syncing at once (each starts with a sync) leave one inventory",
    async () => {
      const twin = await (engine.openTwin as NonNullable<typeof engine.openTwin>)(store);
      try {
        const idsOf = async (domains: typeof store) =>
          (await domains.registers.allIds()).map(({ id, uuid }) => ({ id, uuid }));
        const before = await idsOf(store);
        await Promise.all([store.inventory.sync(inventory(), t0 + 5), twin.inventory.sync(inventory(), t0 + 5)]);
        expect(await idsOf(twin)).toEqual(before);
        expect((await store.organizations.list()).map((o) => o.key)).toEqual(["acme", "beta"]);
      } finally {
        await twin.close();
      }
    },
  );

  test("a gateway that left the config is retired: not listed or found, its registers still history; back, the same rows", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    const gatewayId = (await store.gateways.locate(acme, ids.gatewayB)) ?? -1;
    await store.inventory.sync(inventory({ gateways: [ids.gatewayB] }), t0 + 1);
    expect(await store.gateways.count(acme)).toBe(1);
    expect(await store.gateways.find(acme, ids.gatewayB)).toBeNull();
    expect((await store.gateways.all()).map((g) => g.uuid)).toContain(ids.gatewayB);
    // Its registers are not retired with it (on SQLite neither): the API reaches them only through the gateway.
    expect((await store.registers.list(gatewayId)).map((r) => r.uuid)).toEqual([ids.register(5)]);
    expect((await store.registers.historyRegisters(gatewayId)).map((r) => r.uuid)).toEqual([ids.register(5)]);
    // Back in the config: active again, the same rows.
    await store.inventory.sync(inventory(), t0 + 2);
    expect(await store.gateways.locate(acme, ids.gatewayB)).toBe(gatewayId);
    expect((await store.registers.list(gatewayId)).map((r) => r.uuid)).toEqual([ids.register(5)]);
  });

  test("an organisation that left the config is removed for good: keys revoked, key freed, the same key again is a new organisation", async () => {
    const beta = (await store.organizations.findByKey("beta"))?.id ?? -1;
    const key = await store.keys.create({ orgKey: "beta", name: "k", scopes: ["devices:read"], expiresAt: null }, t0);
    await store.inventory.sync(inventory({ organizations: [ids.beta] }), t0 + 3);
    expect((await store.organizations.list()).map((o) => o.key)).toEqual(["acme"]);
    expect(await store.organizations.findByKey("beta")).toBeNull();
    expect((await store.keys.lookup(key.key))?.revokedAt).toBe(t0 + 3);
    expect(await store.gateways.count(beta)).toBe(0);
    await expect(
      store.keys.create({ orgKey: "beta", name: "k2", scopes: ["devices:read"], expiresAt: null }, t0),
    ).rejects.toThrow('no organisation with key "beta"');
    // Added again (the config decides a new id): a new organisation, without the old one's keys.
    const again = inventory();
    const betaAgain = again.organizations[1];
    if (betaAgain === undefined) throw new Error("fixture has two organisations");
    betaAgain.id = "00000000-0000-4000-8000-0000000000ff";
    await store.inventory.sync(again, t0 + 4);
    const newBeta = await store.organizations.findByKey("beta");
    expect(newBeta?.id).not.toBe(beta);
    expect((await store.keys.list("beta")).length).toBe(0);
    const removed = await store.query(`SELECT key, uuid FROM organizations WHERE id = ${beta}`);
    expect(removed).toEqual([{ key: `beta#removed-${beta}`, uuid: `${ids.beta}#removed-${beta}` }]);
  });

  test("a site's gateways (docs/fleet.md): its own to change, retired only by the site, refused when owned elsewhere", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    const siteGateway = {
      id: "00000000-0000-4000-8000-0000000000e1",
      serial: "SITE-1",
      name: "Site gateway",
      customer: null,
      heartbeatMs: 300_000,
      firmwareVer: null,
      ipEth: null,
      ipWifi: null,
      ip4g: null,
      signal4g: null,
      modbusDevices: [
        {
          id: "00000000-0000-4000-8000-0000000000e2",
          name: "Meter",
          slaveId: 1,
          protocol: "tcp" as const,
          ipAddress: "127.0.0.1",
          port: 502,
          pollIntervalMs: 1000,
          storageIntervalMs: 60_000,
          template: null,
          registers: [
            {
              id: "00000000-0000-4000-8000-0000000000e3",
              name: "r0",
              address: 0,
              functionCode: 3,
              dataType: "int16",
              unit: null,
              scaleFactor: null,
              isWritable: false,
              writeMin: null,
              writeMax: null,
              description: null,
            },
          ],
        },
      ],
    };
    await store.inventory.syncSite({ orgId: acme, name: "north" }, [siteGateway], t0 + 10);
    expect(await store.registers.ofSite(acme, "north")).toEqual([
      { id: expect.any(Number), uuid: "00000000-0000-4000-8000-0000000000e3", storageIntervalMs: 60_000 },
    ]);
    expect(await store.registers.ofSite(acme, "south")).toEqual([]);
    // The central's own config sync leaves the site's gateway alone (the config as the test before left it).
    const config = inventory();
    const beta = config.organizations[1];
    if (beta !== undefined) beta.id = "00000000-0000-4000-8000-0000000000ff";
    await store.inventory.sync(config, t0 + 11);
    expect(await store.gateways.locate(acme, siteGateway.id)).not.toBeNull();
    expect(await store.registers.ofSite(acme, "north")).toHaveLength(1);
    // Another site, or a gateway of the config, cannot be taken over; nothing changes.
    await expect(store.inventory.syncSite({ orgId: acme, name: "south" }, [siteGateway], t0 + 12)).rejects.toThrow(
      "gateway SITE-1 belongs to another site",
    );
    await expect(
      store.inventory.syncSite(
        { orgId: acme, name: "north" },
        [{ ...siteGateway, id: ids.gatewayA, serial: "SN-A" }],
        t0 + 12,
      ),
    ).rejects.toThrow("gateway SN-A belongs to another site");
    expect(await store.registers.ofSite(acme, "north")).toHaveLength(1);
    // Left out of the site's list: retired by the site's sync.
    await store.inventory.syncSite({ orgId: acme, name: "north" }, [], t0 + 13);
    expect(await store.registers.ofSite(acme, "north")).toEqual([]);
  });

  test("foreign keys as on SQLite: an organisation or gateway still referred to cannot be deleted; rows stay", async () => {
    const acme = (await store.organizations.findByKey("acme"))?.id ?? -1;
    const gatewayId = (await store.gateways.locate(acme, ids.gatewayA)) ?? -1;
    await expect(store.query(`DELETE FROM organizations WHERE id = ${acme}`)).rejects.toThrow(/foreign key/i);
    await expect(store.query(`DELETE FROM gateways WHERE id = ${gatewayId}`)).rejects.toThrow(/foreign key/i);
    expect(await store.gateways.locate(acme, ids.gatewayA)).toBe(gatewayId);
    // A row referring to nothing is refused too.
    await expect(
      store.query(`INSERT INTO customers (uuid, org_id, key, name) VALUES ('x', 99999, 'x', 'x')`),
    ).rejects.toThrow(/foreign key/i);
  });
});
