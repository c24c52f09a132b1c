import packageJson from "../../package.json" with { type: "json" };

// Replaced at compile time by scripts/build (--define); "dev" when run from source.
declare const FIELDHUB_COMMIT: string | undefined;

export const version: string = packageJson.version;
export const commit: string = typeof FIELDHUB_COMMIT === "string" ? FIELDHUB_COMMIT : "dev";
