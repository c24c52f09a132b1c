CREATE TABLE "edge_tokens" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "edge_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"uuid" text NOT NULL,
	"org_id" integer NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint,
	CONSTRAINT "edge_tokens_uuid_unique" UNIQUE("uuid"),
	CONSTRAINT "edge_tokens_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
ALTER TABLE "edge_tokens" ADD CONSTRAINT "edge_tokens_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "edge_tokens_live_name" ON "edge_tokens" USING btree ("org_id","name") WHERE "edge_tokens"."revoked_at" IS NULL;