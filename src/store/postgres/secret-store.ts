/**
 * Named secrets on PostgreSQL, as ../sqlite/secrets.ts. Every central process must sign
 * and check cursors with the same key (a cursor issued by one works on another),
 * so the first process to ask creates it and the others read the one stored.
 */
import { randomBytes } from "node:crypto";
import type { SecretStore } from "../contract/secrets.ts";
import type { Sql } from "./connection.ts";
import { firstOf } from "./rows.ts";

export function postgresSecretStore(sql: Sql): SecretStore {
  async function getOrCreate(name: string): Promise<Buffer> {
    const key = `secret:${name}`;
    const value = randomBytes(32).toString("base64");
    // Inserted when absent; then what is stored is read back (this value, or that of a process that won the race).
    await sql`INSERT INTO store_meta (key, value) VALUES (${key}, ${value}) ON CONFLICT (key) DO NOTHING`;
    const stored = await firstOf<{ value: string }>(sql`SELECT value FROM store_meta WHERE key = ${key}`);
    return Buffer.from(stored?.value ?? value, "base64");
  }

  return { getOrCreate };
}
