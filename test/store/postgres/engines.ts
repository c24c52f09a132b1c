/**
 * The store domains behind one asynchronous face on both engines, so one set of
 * assertions proves SQLite and PostgreSQL alike: both answer through the store's
 * asynchronous domain interfaces. Each `open()` gives an empty store: an in-memory SQLite file,
 * or a new database on the file's private PostgreSQL.
 */
import { afterAll, beforeAll, describe } from "bun:test";
import type { EventStore } from "../../../src/store/contract/events.ts";
import type { LatestValue, PruneResult, ReadingStore } from "../../../src/store/contract/readings.ts";
import type { Store } from "../../../src/store/index.ts";
import { openStoreFile } from "../../../src/store/index.ts";
import { postgresEventStore } from "../../../src/store/postgres/event-store.ts";
import { openPostgresStore } from "../../../src/store/postgres/index.ts";
import { sqliteOf } from "../../../src/store/sqlite/sqlite-internals.ts";
import {
  type PrivatePostgres,
  postgresAvailable,
  postgresMissingReason,
  startPostgres,
} from "../../harness/postgres.ts";
import { inventory } from "./inventory-fixture.ts";

const domains = [
  "organizations",
  "inventory",
  "registers",
  "gateways",
  "alerts",
  "keys",
  "admin",
  "writes",
  "secrets",
  "sparkplug",
  "edges",
] as const;
type Domain = (typeof domains)[number];

export type OpenDomains = { [K in Domain]: Store[K] } & {
  /** ReadingStore.importReadings: one reading per register and storage period; a resend stores nothing. */
  importReadings: ReadingStore["importReadings"];
  /** ReadingStore.recordPolled: ingest's write, readings and the aggregates of periods that ended. */
  recordPolled: ReadingStore["recordPolled"];
  /** ReadingStore.page, to read back what was stored. */
  page: ReadingStore["page"];
  /** ReadingStore.closePeriods: the periods ended by `nowMs` encoded into blocks. */
  closePeriods: ReadingStore["closePeriods"];
  /** Retention (ReadingStore.prune) over this engine's readings. */
  pruneReadings(cutoffMs: number): Promise<PruneResult>;
  /** ReadingStore.setLatest: the value given last wins. */
  setLatest(values: LatestValue[]): Promise<void>;
  /** ReadingStore.record: readings stored, each register's latest value moved forward only when newer (and written). */
  record(values: LatestValue[]): Promise<void>;
  /** PostgreSQL: record without asking for the latest values to be written (they are within a second). */
  recordUnwritten?(values: LatestValue[]): Promise<void>;
  /** An organisation's events, oldest first. */
  events(orgId: number): Promise<{ type: string; data: Record<string, unknown> }[]>;
  /** The event outbox itself. */
  outbox: EventStore;
  /** Raw SQL for checks no operation offers (rows as stored, foreign keys); the same text on both engines. */
  query(text: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
};

export interface Engine {
  name: string;
  available: boolean;
  skipReason: string;
  open(): Promise<OpenDomains>;
  /** A second handle on the same store, as another process would have (PostgreSQL: its own pool). */
  openTwin?(of: OpenDomains): Promise<OpenDomains>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

function sqliteEngine(): Engine {
  return {
    name: "SQLite",
    available: true,
    skipReason: "",
    start: async () => {},
    stop: async () => {},
    async open() {
      const store = openStoreFile(":memory:");
      const wrapped = Object.fromEntries(domains.map((name) => [name, store[name]])) as {
        [K in Domain]: Store[K];
      };
      return {
        ...wrapped,
        importReadings: (batch, periods) => store.readings.importReadings(batch, periods),
        page: (query) => store.readings.page(query),
        recordPolled: (readings, aggregates) => store.readings.recordPolled(readings, aggregates),
        pruneReadings: (cutoffMs) => store.readings.prune(cutoffMs, { pauseMs: 0 }),
        closePeriods: (nowMs) => store.readings.closePeriods(nowMs),
        setLatest: async (values) => store.readings.setLatest(values),
        record: async (values) => store.readings.record(values),
        events: async (orgId) => store.events.listAfter(orgId),
        outbox: store.events,
        query: async (text) => sqliteOf(store).query(text).all() as Record<string, unknown>[],
        close: async () => store.close(),
      };
    },
  };
}

function postgresEngine(): Engine {
  let pg: PrivatePostgres | null = null;
  let databases = 0;
  const urls = new WeakMap<OpenDomains, string>();
  async function openAt(url: string): Promise<OpenDomains> {
    const store = await openPostgresStore(url, { max: 4 });
    const raw = new Bun.SQL(url, { max: 1 });
    const events = postgresEventStore(raw);
    const { readings, close, ...rest } = store;
    const opened: OpenDomains = {
      ...rest,
      importReadings: (batch, periods) => readings.importReadings(batch, periods),
      page: (query) => readings.page(query),
      recordPolled: (batch, aggregates) => readings.recordPolled(batch, aggregates),
      pruneReadings: (cutoffMs) => readings.prune(cutoffMs, { pauseMs: 0 }),
      closePeriods: (nowMs) => readings.closePeriods(nowMs),
      setLatest: (values) => readings.setLatest(values),
      // Latest values moved by record are written within a second (PendingLatest); here at once.
      record: async (values) => {
        await readings.record(values);
        await readings.persistLatest();
      },
      recordUnwritten: (values) => readings.record(values),
      events: (orgId) => events.listAfter(orgId),
      outbox: events,
      query: async (text) => [...((await raw.unsafe(text)) as Record<string, unknown>[])],
      close: async () => {
        await raw.close();
        await close();
      },
    };
    urls.set(opened, url);
    return opened;
  }
  return {
    name: "PostgreSQL",
    available: postgresAvailable,
    skipReason: postgresMissingReason,
    async start() {
      if (postgresAvailable) pg = await startPostgres();
    },
    async stop() {
      await pg?.stop();
    },
    async open() {
      return openAt(await (pg as PrivatePostgres).database(`domains_${++databases}`));
    },
    async openTwin(of) {
      return openAt(urls.get(of) as string);
    },
  };
}

/**
 * One suite per engine, skipped with the reason where PostgreSQL is missing: an empty
 * store with the fixture inventory (inventory-fixture.ts) synced at `syncedAt`, opened
 * before the suite's own `beforeAll`s and closed (its engine stopped) after them.
 * `opened()` gives that store.
 */
export function describeOnBothEngines(
  title: string,
  syncedAt: number,
  suite: (opened: () => OpenDomains, engine: Engine) => void,
): void {
  for (const engine of bothEngines()) {
    describe.skipIf(!engine.available)(
      `${engine.name}: ${title}${engine.available ? "" : ` (${engine.skipReason})`}`,
      () => {
        let store: OpenDomains | undefined;
        beforeAll(async () => {
          await engine.start();
          store = await engine.open();
          await store.inventory.sync(inventory(), syncedAt);
        });
        afterAll(async () => {
          await store?.close();
          await engine.stop();
        });
        suite(() => {
          if (store === undefined) throw new Error(`${engine.name}: the store is not open yet`);
          return store;
        }, engine);
      },
    );
  }
}

/** Fresh per test file: each file starts (and stops) its own private PostgreSQL. */
export function bothEngines(): Engine[] {
  return [sqliteEngine(), postgresEngine()];
}
