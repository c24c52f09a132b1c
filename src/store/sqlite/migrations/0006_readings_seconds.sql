-- Reading times become whole seconds since 2020-01-01T00:00:00Z (column ts_s): a
-- 4-byte integer until 2088 where Unix milliseconds take 6 bytes, about 2 bytes
-- less a reading on disk. Stored history is at most one value a minute, so the
-- milliseconds carried nothing. The table is rebuilt in key order (once, at
-- upgrade); a second reading within the same second of a register, which the
-- stored density never produces, keeps the earlier one.
CREATE TABLE `readings_seconds` (
	`register_id` integer NOT NULL,
	`ts_s` integer NOT NULL,
	`raw_value` numeric,
	PRIMARY KEY(`register_id`, `ts_s`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT OR IGNORE INTO `readings_seconds` (`register_id`, `ts_s`, `raw_value`)
	SELECT `register_id`, (`ts` - 1577836800000) / 1000 - ((`ts` - 1577836800000) % 1000 < 0), `raw_value` FROM `readings` ORDER BY `register_id`, `ts`;
--> statement-breakpoint
DROP TABLE `readings`;
--> statement-breakpoint
ALTER TABLE `readings_seconds` RENAME TO `readings`;
