CREATE TABLE "admin_sessions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "admin_sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"token_hash" text NOT NULL,
	"user_id" integer NOT NULL,
	"csrf_token" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"revoked_at" bigint,
	CONSTRAINT "admin_sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "admin_users" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "admin_users_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "admin_users_username_unique" UNIQUE("username")
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alerts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"uuid" text NOT NULL,
	"org_id" integer NOT NULL,
	"gateway_id" integer,
	"rule_id" text,
	"severity" text NOT NULL,
	"message" text NOT NULL,
	"status" text NOT NULL,
	"value" double precision,
	"created_at" bigint NOT NULL,
	"last_triggered_at" bigint,
	"returned_at" bigint,
	"ack_at" bigint,
	"ack_note" text,
	"resolved_at" bigint,
	"resolve_note" text,
	"entry_count" integer DEFAULT 1 NOT NULL,
	CONSTRAINT "alerts_uuid_unique" UNIQUE("uuid")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "api_keys_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"uuid" text NOT NULL,
	"org_id" integer NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"scopes" text NOT NULL,
	"kind" text DEFAULT 'standard' NOT NULL,
	"rate_limit_per_minute" integer,
	"created_at" bigint NOT NULL,
	"expires_at" bigint,
	"revoked_at" bigint,
	"last_used_at" bigint,
	CONSTRAINT "api_keys_uuid_unique" UNIQUE("uuid"),
	CONSTRAINT "api_keys_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE TABLE "customers" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "customers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"uuid" text NOT NULL,
	"org_id" integer NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"city" text,
	CONSTRAINT "customers_uuid_unique" UNIQUE("uuid")
);
--> statement-breakpoint
CREATE TABLE "device_templates" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "device_templates_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"uuid" text NOT NULL,
	"brand" text NOT NULL,
	"model" text NOT NULL,
	CONSTRAINT "device_templates_uuid_unique" UNIQUE("uuid")
);
--> statement-breakpoint
CREATE TABLE "gateways" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gateways_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"uuid" text NOT NULL,
	"org_id" integer NOT NULL,
	"customer_id" integer,
	"serial" text NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"firmware_ver" text,
	"ip_eth" text,
	"ip_wifi" text,
	"ip_4g" text,
	"signal_4g" integer,
	"last_seen" bigint,
	"heartbeat_ms" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"claimed_at" bigint,
	"retired_at" bigint,
	CONSTRAINT "gateways_uuid_unique" UNIQUE("uuid"),
	CONSTRAINT "gateways_serial_unique" UNIQUE("serial")
);
--> statement-breakpoint
CREATE TABLE "modbus_devices" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "modbus_devices_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"uuid" text NOT NULL,
	"gateway_id" integer NOT NULL,
	"name" text,
	"slave_id" integer NOT NULL,
	"protocol" text NOT NULL,
	"ip_address" text,
	"port" integer,
	"poll_interval_ms" integer,
	"storage_interval_ms" integer,
	"template_id" integer,
	"position" integer NOT NULL,
	"retired_at" bigint,
	CONSTRAINT "modbus_devices_uuid_unique" UNIQUE("uuid")
);
--> statement-breakpoint
CREATE TABLE "register_writes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "register_writes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"uuid" text NOT NULL,
	"org_id" integer NOT NULL,
	"register_id" integer NOT NULL,
	"actor" text NOT NULL,
	"value_before" double precision,
	"value_asked" double precision NOT NULL,
	"result" text NOT NULL,
	"read_back" double precision,
	"detail" text,
	"requested_at" bigint NOT NULL,
	"finished_at" bigint NOT NULL,
	CONSTRAINT "register_writes_uuid_unique" UNIQUE("uuid")
);
--> statement-breakpoint
CREATE TABLE "registers" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "registers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"uuid" text NOT NULL,
	"gateway_id" integer NOT NULL,
	"modbus_device_id" integer NOT NULL,
	"name" text NOT NULL,
	"address" integer NOT NULL,
	"function_code" integer,
	"data_type" text NOT NULL,
	"unit" text,
	"scale_factor" double precision,
	"is_writable" boolean DEFAULT false NOT NULL,
	"write_min" double precision,
	"write_max" double precision,
	"description" text,
	"latest_raw_value" double precision,
	"latest_ts" bigint,
	"latest_text" text,
	"position" integer NOT NULL,
	"retired_at" bigint,
	CONSTRAINT "registers_uuid_unique" UNIQUE("uuid")
);
--> statement-breakpoint
CREATE TABLE "store_meta" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "admin_sessions" ADD CONSTRAINT "admin_sessions_user_id_admin_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."admin_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_gateway_id_gateways_id_fk" FOREIGN KEY ("gateway_id") REFERENCES "public"."gateways"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customers" ADD CONSTRAINT "customers_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateways" ADD CONSTRAINT "gateways_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateways" ADD CONSTRAINT "gateways_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "modbus_devices" ADD CONSTRAINT "modbus_devices_gateway_id_gateways_id_fk" FOREIGN KEY ("gateway_id") REFERENCES "public"."gateways"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "modbus_devices" ADD CONSTRAINT "modbus_devices_template_id_device_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."device_templates"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "register_writes" ADD CONSTRAINT "register_writes_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "register_writes" ADD CONSTRAINT "register_writes_register_id_registers_id_fk" FOREIGN KEY ("register_id") REFERENCES "public"."registers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registers" ADD CONSTRAINT "registers_gateway_id_gateways_id_fk" FOREIGN KEY ("gateway_id") REFERENCES "public"."gateways"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registers" ADD CONSTRAINT "registers_modbus_device_id_modbus_devices_id_fk" FOREIGN KEY ("modbus_device_id") REFERENCES "public"."modbus_devices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "admin_sessions_user" ON "admin_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "alerts_org_triggered" ON "alerts" USING btree ("org_id","last_triggered_at");--> statement-breakpoint
CREATE INDEX "alerts_rule_gateway" ON "alerts" USING btree ("rule_id","gateway_id");--> statement-breakpoint
CREATE UNIQUE INDEX "customers_org_key" ON "customers" USING btree ("org_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "device_templates_brand_model" ON "device_templates" USING btree ("brand","model");--> statement-breakpoint
CREATE INDEX "gateways_org_last_seen" ON "gateways" USING btree ("org_id","last_seen");--> statement-breakpoint
CREATE INDEX "modbus_devices_gateway" ON "modbus_devices" USING btree ("gateway_id");--> statement-breakpoint
CREATE INDEX "register_writes_org_requested" ON "register_writes" USING btree ("org_id","requested_at");--> statement-breakpoint
CREATE INDEX "registers_gateway" ON "registers" USING btree ("gateway_id");