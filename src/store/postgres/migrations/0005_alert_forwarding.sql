ALTER TABLE "alerts" ADD COLUMN "edge_event_seq" bigint;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "requested_action" text;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "requested_note" text;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "requested_at" bigint;