import { defineConfig } from "drizzle-kit";

// `npx drizzle-kit generate` writes a new migration from src/store/sqlite/schema.ts.
// Never edit a migration once it has been committed: drizzle does not compare hashes.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/store/sqlite/schema.ts",
  out: "./src/store/sqlite/migrations",
});
