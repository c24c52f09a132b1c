ALTER TABLE "history_tail" ADD COLUMN "raw_min" double precision;--> statement-breakpoint
ALTER TABLE "history_tail" ADD COLUMN "raw_max" double precision;--> statement-breakpoint
ALTER TABLE "history_tail" ADD COLUMN "raw_mean" double precision;--> statement-breakpoint
ALTER TABLE "history_tail" ADD COLUMN "samples" integer;