-- Reading history moves to compressed blocks. drizzle-kit wrote a DROP
-- of `readings` here; it is renamed instead, so that no reading is lost: the store
-- converts `readings_legacy` into history_blocks/history_tail on open, register by
-- register, and drops it once empty (src/store/history/upgrade.ts).
ALTER TABLE `readings` RENAME TO `readings_legacy`;
