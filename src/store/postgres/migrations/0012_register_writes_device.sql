ALTER TABLE "register_writes" ALTER COLUMN "register_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "register_writes" ALTER COLUMN "value_asked" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "register_writes" ADD COLUMN "modbus_device_id" integer;--> statement-breakpoint
ALTER TABLE "register_writes" ADD COLUMN "function_code" integer;--> statement-breakpoint
ALTER TABLE "register_writes" ADD COLUMN "address" integer;--> statement-breakpoint
ALTER TABLE "register_writes" ADD COLUMN "values_written" text;--> statement-breakpoint
ALTER TABLE "register_writes" ADD CONSTRAINT "register_writes_modbus_device_id_modbus_devices_id_fk" FOREIGN KEY ("modbus_device_id") REFERENCES "public"."modbus_devices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "register_writes" ADD CONSTRAINT "register_writes_one_target" CHECK ((register_id IS NULL) <> (modbus_device_id IS NULL));