import { defineConfig } from "drizzle-kit";

// `npx drizzle-kit generate --config drizzle.pg.config.ts` writes a new PostgreSQL
// migration from src/store/postgres/schema.ts (docs/fleet.md, "One schema, two engines").
// Never edit a migration once it has been committed.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/postgres/schema.ts",
  out: "./src/store/postgres/migrations",
});
