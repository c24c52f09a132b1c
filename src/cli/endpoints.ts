/**
 * `fieldhub endpoints ...`: webhook endpoints in the store of a data directory
 * (docs/api.md section 6), through the endpoint service. The CLI writes to the store; the
 * dispatcher of the fieldhub running on that data directory does the sending.
 */
import { createProgress } from "../history-io/progress.ts";
import { isoFromMs, systemClock } from "../lib/clock.ts";
import { CodedError } from "../lib/errors.ts";
import { parseRfc3339 } from "../lib/timestamps.ts";
import { type DeliveryCounts, type ResendStatus, resendStatuses } from "../store/contract/webhooks.ts";
import type { Store } from "../store/index.ts";
import { type EndpointService, type EndpointView, endpointService, maxRateLimitPerS } from "../webhooks/endpoints.ts";
import { CommandError, parseCommandArgs, requireDataDir, requireOption, UsageError } from "./args.ts";
import { openCommandStore } from "./command-store.ts";
import { type CommandHelp, dataOption, jsonOption, type OptionHelp, orgOption } from "./help.ts";

const urlOption: OptionHelp = { flag: "--url URL", text: "where deliveries are POSTed (http or https)" };
const eventsOption: OptionHelp = {
  flag: "--events a,b",
  text: "comma-separated event types to send, e.g. alert.triggered,alert.resolved (empty: every event type)",
};
const descriptionOption: OptionHelp = { flag: "--description TEXT", text: "a note for people (empty text clears it)" };
const rateLimitOption: OptionHelp = {
  flag: "--rate-limit-per-s N",
  text: `deliveries a second at most to this endpoint, 1 to ${maxRateLimitPerS}; none: unlimited (the default)`,
};

export const endpointsHelp: readonly CommandHelp[] = [
  {
    command: "endpoints create",
    arguments: "--data DIR --org ORG --url URL [--events a,b] [--description TEXT] [--rate-limit-per-s N] [--json]",
    summary: "Add a webhook endpoint for an organisation; prints its id and signing secret.",
    options: [dataOption, orgOption, urlOption, eventsOption, descriptionOption, rateLimitOption, jsonOption],
  },
  {
    command: "endpoints list",
    arguments: "--data DIR [--org ORG] [--json]",
    summary: "List webhook endpoints with their status (enabled, or paused and why).",
    options: [dataOption, { ...orgOption, text: "only the endpoints of this organisation" }, jsonOption],
  },
  {
    command: "endpoints update",
    arguments: "--data DIR ID [--url URL] [--events a,b] [--description TEXT] [--rate-limit-per-s N|none] [--json]",
    summary: "Change an endpoint's URL, events, description or rate limit (give at least one).",
    options: [dataOption, urlOption, eventsOption, descriptionOption, rateLimitOption, jsonOption],
  },
  {
    command: "endpoints delete",
    arguments: "--data DIR ID",
    summary: "Delete an endpoint; messages still to be sent to it are discarded.",
    options: [dataOption],
  },
  {
    command: "endpoints secret",
    arguments: "--data DIR ID [--json]",
    summary: "Show an endpoint's signing secret (and the previous one while it is still valid).",
    options: [dataOption, jsonOption],
  },
  {
    command: "endpoints rotate-secret",
    arguments: "--data DIR ID [--grace DURATION] [--json]",
    summary: "Give an endpoint a new signing secret; deliveries carry both signatures during the grace period.",
    options: [
      dataOption,
      {
        flag: "--grace DURATION",
        text: "how long the old secret stays valid: 90s, 30m, 24h, 7d; 0s ends it at once (default 24h)",
      },
      jsonOption,
    ],
  },
  {
    command: "endpoints enable",
    arguments: "--data DIR ID [--discard-held]",
    summary: "Enable a paused endpoint; the messages held while it was paused are sent.",
    options: [dataOption, { flag: "--discard-held", text: "discard the held messages instead of sending them" }],
  },
  {
    command: "endpoints test",
    arguments: "--data DIR ID [--wait SECONDS]",
    summary:
      "Queue a test message and wait for the running fieldhub's first attempt to deliver it; exit 1 if it fails.",
    options: [
      dataOption,
      { flag: "--wait SECONDS", text: "how long to wait for the first attempt, 0 to 3600; 0 only queues (default 15)" },
    ],
  },
  {
    command: "endpoints deliveries",
    arguments: "--data DIR ID [--limit N] [--json]",
    summary: "Show the latest messages for an endpoint with every attempt to deliver them.",
    options: [dataOption, { flag: "--limit N", text: "at most N messages, 1 to 1000 (default 50)" }, jsonOption],
  },
  {
    command: "endpoints resend",
    arguments: "--data DIR ID (--since T [--until T] [--status failed|delivered|all] | MESSAGE_ID)",
    summary:
      "Send the endpoint's messages of a time range again (or one message), with the same webhook-ids; " +
      "shows the running fieldhub's progress until each had its first attempt.",
    options: [
      dataOption,
      {
        flag: "--since T",
        text: "messages whose timestamp is at or after T: an RFC 3339 date-time, or a time ago (90m, 24h, 7d)",
      },
      { flag: "--until T", text: "and before T (default now)" },
      {
        flag: "--status S",
        text: "failed: those the endpoint never took (failed or discarded; the default); delivered; all",
      },
    ],
  },
];

export async function endpointsCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  switch (action) {
    case "create":
      return createEndpoint(rest);
    case "list":
      return listEndpoints(rest);
    case "update":
      return updateEndpoint(rest);
    case "delete":
      return deleteEndpoint(rest);
    case "secret":
      return showSecret(rest);
    case "rotate-secret":
      return rotateSecret(rest);
    case "enable":
      return enableEndpoint(rest);
    case "test":
      return testEndpoint(rest);
    case "deliveries":
      return showDeliveries(rest);
    case "resend":
      return resendMessage(rest);
    default:
      throw new UsageError(action === undefined ? "endpoints needs an action" : `unknown endpoints action "${action}"`);
  }
}

/** Opens the store, runs `work` with the service, and turns the service's coded errors into exit 1. */
async function withService<T>(
  dataDir: string,
  work: (service: EndpointService, store: Store) => T | Promise<T>,
): Promise<T> {
  const store = await openCommandStore(dataDir);
  try {
    return await work(
      endpointService(store, () => systemClock.now()),
      store,
    );
  } catch (error) {
    if (error instanceof CodedError) throw new CommandError(error.message);
    throw error;
  } finally {
    await store.close();
  }
}

function writeJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** `a,b` to a list; empty text is the empty list (every event type). */
function parseEvents(text: string): string[] {
  return text
    .split(",")
    .map((type) => type.trim())
    .filter((type) => type.length > 0);
}

/** The one positional argument of an action (the endpoint id), or more when asked. */
function positionalsOf(positionals: string[], names: string[], action: string): string[] {
  if (positionals.length !== names.length) {
    throw new UsageError(`endpoints ${action} takes ${names.join(" ")}`);
  }
  return positionals;
}

function eventsText(view: EndpointView): string {
  return view.events.length === 0 ? "all events" : view.events.join(",");
}

async function createEndpoint(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    data: { type: "string" },
    org: { type: "string" },
    url: { type: "string" },
    events: { type: "string" },
    description: { type: "string" },
    "rate-limit-per-s": { type: "string" },
    json: { type: "boolean" },
  });
  const dataDir = requireDataDir(values.data);
  const orgKey = requireOption(values.org, "--org");
  const rateLimitPerS = parseRateLimit(values["rate-limit-per-s"]);
  const url = requireOption(values.url, "--url");
  await withService(dataDir, async (service, store) => {
    let created: Awaited<ReturnType<EndpointService["create"]>>;
    try {
      created = await service.create({
        orgKey,
        url,
        description: values.description === undefined || values.description === "" ? null : values.description,
        events: values.events === undefined ? [] : parseEvents(values.events),
        rateLimitPerS: rateLimitPerS ?? null,
      });
    } catch (error) {
      if (error instanceof CodedError && error.code === "not_found") {
        const known = (await store.organizations.list()).map((org) => org.key);
        throw new CommandError(
          `no organisation "${orgKey}" in ${dataDir}; ${known.length > 0 ? `known: ${known.join(", ")}` : "start fieldhub serve with its config once first"}`,
        );
      }
      throw error;
    }
    const { endpoint, secret } = created;
    if (values.json === true) {
      writeJson({ ...endpoint, secret });
      return;
    }
    process.stdout.write(`id      ${endpoint.id}\nsecret  ${secret}\n`);
    process.stderr.write(
      `Endpoint for ${endpoint.organization}: ${endpoint.url} (${eventsText(endpoint)}). ` +
        `Give the secret to the receiver; \`fieldhub endpoints secret --data ${dataDir} ${endpoint.id}\` shows it again.\n`,
    );
  });
}

/** `--rate-limit-per-s`: a whole number 1..10000, or `none` (unlimited); undefined when not given. */
function parseRateLimit(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text === "none" || text === "") return null;
  const perSecond = Number(text);
  if (!/^\d+$/.test(text) || perSecond < 1 || perSecond > maxRateLimitPerS) {
    throw new UsageError(`--rate-limit-per-s: a whole number from 1 to ${maxRateLimitPerS}, or none: ${text}`);
  }
  return perSecond;
}

function describeEndpoint(view: EndpointView): string {
  const status =
    view.status === "paused"
      ? `paused since ${view.paused_at ?? "?"}: ${view.pause_reason ?? "no reason recorded"}`
      : view.failed_messages_in_row > 0
        ? `enabled (${view.failed_messages_in_row} failed message${view.failed_messages_in_row === 1 ? "" : "s"} in a row)`
        : "enabled";
  const pace = view.rate_limit_per_s === null ? "" : `at most ${view.rate_limit_per_s}/s`;
  return [view.id, view.organization, status, view.url, eventsText(view), pace, view.description ?? ""].join("\t");
}

async function listEndpoints(argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(argv, {
    data: { type: "string" },
    org: { type: "string" },
    json: { type: "boolean" },
  });
  await withService(requireDataDir(values.data), async (service) => {
    const endpoints = await service.list(values.org);
    if (values.json === true) {
      writeJson(endpoints);
      return;
    }
    process.stdout.write(
      endpoints.length > 0 ? `${endpoints.map(describeEndpoint).join("\n")}\n` : "no webhook endpoints\n",
    );
  });
}

async function updateEndpoint(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      data: { type: "string" },
      url: { type: "string" },
      events: { type: "string" },
      description: { type: "string" },
      "rate-limit-per-s": { type: "string" },
      json: { type: "boolean" },
    },
    true,
  );
  const [id] = positionalsOf(positionals, ["ID"], "update");
  const dataDir = requireDataDir(values.data);
  const rateLimitPerS = parseRateLimit(values["rate-limit-per-s"]);
  if (
    values.url === undefined &&
    values.events === undefined &&
    values.description === undefined &&
    rateLimitPerS === undefined
  ) {
    throw new UsageError("endpoints update: give at least one of --url, --events, --description, --rate-limit-per-s");
  }
  await withService(dataDir, async (service) => {
    const view = await service.update(id!, {
      url: values.url,
      // An empty --events subscribes to every event type; an empty --description clears it.
      events: values.events === undefined ? undefined : parseEvents(values.events),
      description: values.description === undefined ? undefined : values.description === "" ? null : values.description,
      rateLimitPerS,
    });
    if (values.json === true) {
      writeJson(view);
      return;
    }
    process.stdout.write(`updated ${describeEndpoint(view)}\n`);
  });
}

async function deleteEndpoint(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { data: { type: "string" } }, true);
  const [id] = positionalsOf(positionals, ["ID"], "delete");
  await withService(requireDataDir(values.data), async (service) => {
    const view = await service.get(id!);
    await service.delete(view.id);
    process.stdout.write(`deleted endpoint ${view.id} (${view.url}); messages still to be sent to it are discarded\n`);
  });
}

async function showSecret(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { data: { type: "string" }, json: { type: "boolean" } }, true);
  const [id] = positionalsOf(positionals, ["ID"], "secret");
  await withService(requireDataDir(values.data), async (service) => {
    const view = await service.get(id!);
    const secret = await service.secret(view.id);
    if (values.json === true) {
      writeJson({
        id: view.id,
        secret: secret.secret,
        previous: secret.previous,
        previous_valid_until: secret.previousUntil,
      });
      return;
    }
    process.stdout.write(`secret    ${secret.secret}\n`);
    if (secret.previous !== null) {
      process.stdout.write(`previous  ${secret.previous} (also signed with until ${secret.previousUntil})\n`);
    }
  });
}

const durationUnits: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const longestGraceMs = 365 * 86_400_000;

/** `90s`, `30m`, `24h`, `7d` (and `0s`: the old secret stops at once) to milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const match = /^(\d+)\s*([smhd])$/.exec(text.trim());
  if (match === null) throw new UsageError(`${flag}: not a duration like 90s, 30m, 24h or 7d: ${text}`);
  const ms = Number(match[1]) * (durationUnits[match[2]!] ?? 0);
  if (ms > longestGraceMs) throw new UsageError(`${flag}: at most 365d`);
  return ms;
}

async function rotateSecret(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { data: { type: "string" }, grace: { type: "string" }, json: { type: "boolean" } },
    true,
  );
  const [id] = positionalsOf(positionals, ["ID"], "rotate-secret");
  const dataDir = requireDataDir(values.data);
  const graceMs = parseDuration(values.grace ?? "24h", "--grace");
  await withService(dataDir, async (service) => {
    const view = await service.get(id!);
    const rotated = await service.rotateSecret(view.id, graceMs);
    if (values.json === true) {
      writeJson({ id: view.id, secret: rotated.secret, previous_valid_until: rotated.previousValidUntil });
      return;
    }
    process.stdout.write(`secret  ${rotated.secret}\n`);
    process.stderr.write(
      `The old secret stays valid until ${rotated.previousValidUntil}: until then every delivery carries ` +
        "both signatures. Update the receiver before that.\n",
    );
  });
}

async function enableEndpoint(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { data: { type: "string" }, "discard-held": { type: "boolean" } },
    true,
  );
  const [id] = positionalsOf(positionals, ["ID"], "enable");
  const discardHeld = values["discard-held"] === true;
  await withService(requireDataDir(values.data), async (service) => {
    const before = await service.get(id!);
    const { held } = await service.enable(before.id, { discardHeld });
    if (before.status !== "paused") {
      process.stdout.write(`endpoint ${before.id} was not paused; it stays enabled\n`);
      return;
    }
    const messages = `${held} message${held === 1 ? "" : "s"} held while it was paused`;
    process.stdout.write(
      `enabled endpoint ${before.id} (${before.url}); ${
        discardHeld ? `${messages}: discarded` : `${messages}: sent now by the running fieldhub`
      }\n`,
    );
  });
}

type DeliveryEntry = Awaited<ReturnType<EndpointService["deliveries"]>>[number];

async function testEndpoint(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, { data: { type: "string" }, wait: { type: "string" } }, true);
  const [id] = positionalsOf(positionals, ["ID"], "test");
  const dataDir = requireDataDir(values.data);
  const waitSeconds = values.wait === undefined ? 15 : Number(values.wait);
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0 || waitSeconds > 3600) {
    throw new UsageError(`--wait: a number of seconds from 0 to 3600: ${values.wait}`);
  }
  await withService(dataDir, async (service) => {
    const view = await service.get(id!);
    const messageId = await service.sendTest(view.id);
    process.stdout.write(`queued test message ${messageId} for ${view.url}\n`);
    const entryOf = async (): Promise<DeliveryEntry | undefined> =>
      (await service.deliveries(view.id, 20)).find((delivery) => delivery.message_id === messageId);
    if ((await entryOf())?.status === "held") {
      throw new CommandError(
        `endpoint ${view.id} is paused (${view.pause_reason ?? "no reason recorded"}); the test message is held ` +
          `until \`fieldhub endpoints enable --data ${dataDir} ${view.id}\``,
      );
    }
    if (waitSeconds === 0) return;
    const deadline = Date.now() + waitSeconds * 1000;
    let entry = await entryOf();
    while ((entry === undefined || entry.attempt_log.length === 0) && Date.now() < deadline) {
      await Bun.sleep(100);
      entry = await entryOf();
    }
    const first = entry?.attempt_log[0];
    if (entry === undefined || first === undefined) {
      throw new CommandError(
        `no attempt to deliver ${messageId} within ${waitSeconds} s: no fieldhub seems to be running on ${dataDir} ` +
          "(or the receiver takes longer to answer). The message stays queued and is sent when fieldhub runs there.",
      );
    }
    const outcome = `${first.status_code === null ? "no answer" : `HTTP ${first.status_code}`} in ${first.duration_ms} ms`;
    if (first.status_code !== null && first.status_code >= 200 && first.status_code < 300) {
      process.stdout.write(`delivered: ${outcome}\n`);
      return;
    }
    const after =
      entry.status === "pending"
        ? `it is retried at ${entry.next_attempt_at ?? "?"}`
        : entry.status === "failed"
          ? "no further attempts"
          : `its status is now ${entry.status}`;
    const paused = await service.get(view.id);
    const error = extraError(first.status_code, first.error);
    throw new CommandError(
      `the first attempt failed: ${outcome}${error === null ? "" : ` (${error})`}; ${after}` +
        (paused.status === "paused" ? `; the endpoint is now paused: ${paused.pause_reason ?? ""}` : ""),
    );
  });
}

/** An attempt's error, unless it only repeats the status code ("HTTP 500"). */
function extraError(statusCode: number | null, error: string | null): string | null {
  return error === null || (statusCode !== null && error === `HTTP ${statusCode}`) ? null : error;
}

function oneLine(text: string | null, max: number): string {
  if (text === null) return "";
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

async function showDeliveries(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { data: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } },
    true,
  );
  const [id] = positionalsOf(positionals, ["ID"], "deliveries");
  const dataDir = requireDataDir(values.data);
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new UsageError(`--limit: a whole number from 1 to 1000: ${values.limit}`);
  }
  await withService(dataDir, async (service) => {
    const view = await service.get(id!);
    const deliveries = await service.deliveries(view.id, limit);
    if (values.json === true) {
      writeJson(deliveries);
      return;
    }
    if (deliveries.length === 0) {
      process.stdout.write(`no deliveries to ${view.url}\n`);
      return;
    }
    const lines: string[] = [];
    for (const delivery of deliveries) {
      const lastParts = [
        delivery.last_status_code === null ? null : `HTTP ${delivery.last_status_code}`,
        extraError(delivery.last_status_code, delivery.last_error),
      ].filter((part) => part !== null);
      const last = lastParts.length > 0 ? `last ${lastParts.join(": ")}` : "";
      lines.push(
        [
          delivery.created_at,
          delivery.message_id,
          delivery.type,
          delivery.status,
          `${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}`,
          delivery.next_attempt_at === null ? "" : `next ${delivery.next_attempt_at}`,
          last,
        ]
          .filter((part) => part !== "")
          .join("\t"),
      );
      for (const attempt of delivery.attempt_log) {
        lines.push(
          [
            `  ${attempt.at}`,
            attempt.status_code === null ? "no answer" : `HTTP ${attempt.status_code}`,
            `${attempt.duration_ms} ms`,
            extraError(attempt.status_code, attempt.error) ?? "",
            attempt.response === null ? "" : `response: ${oneLine(attempt.response, 80)}`,
          ]
            .filter((part) => part !== "")
            .join("\t"),
        );
      }
    }
    process.stdout.write(`${lines.join("\n")}\n`);
  });
}

async function resendMessage(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { data: { type: "string" }, since: { type: "string" }, until: { type: "string" }, status: { type: "string" } },
    true,
  );
  const dataDir = requireDataDir(values.data);
  if (values.since === undefined) {
    if (values.until !== undefined || values.status !== undefined) {
      throw new UsageError("endpoints resend: --until and --status go with --since");
    }
    const [id, messageId] = positionalsOf(positionals, ["ID", "MESSAGE_ID"], "resend");
    return resendOne(dataDir, id!, messageId!);
  }
  const [id] = positionalsOf(positionals, ["ID"], "resend --since");
  const now = Date.now();
  const since = parseRangeTime(values.since, "--since", now);
  const until = values.until === undefined ? now : parseRangeTime(values.until, "--until", now);
  if (until <= since) {
    throw new UsageError(`--until (${isoFromMs(until)}) must be after --since (${isoFromMs(since)})`);
  }
  const status = values.status ?? "failed";
  if (!(resendStatuses as readonly string[]).includes(status)) {
    throw new UsageError(`--status: one of ${resendStatuses.join(", ")}, not ${status}`);
  }
  await withService(dataDir, (service) =>
    resendRange(service, dataDir, id!, { since, until, status: status as ResendStatus }),
  );
}

async function resendOne(dataDir: string, id: string, messageId: string): Promise<void> {
  await withService(dataDir, async (service) => {
    const view = await service.get(id);
    await service.resend(view.id, messageId);
    const note =
      view.status === "paused"
        ? `the endpoint is paused: the message is held until \`fieldhub endpoints enable --data ${dataDir} ${view.id}\``
        : "the running fieldhub sends it with the same webhook-id";
    process.stdout.write(`queued ${messageId} again for ${view.url}; ${note}\n`);
  });
}

/** An RFC 3339 date-time, or a time ago: `90m`, `24h`, `7d`. */
function parseRangeTime(text: string, flag: string, now: number): number {
  const ms = parseRfc3339(text);
  if (ms !== null) return ms;
  if (/^\d+\s*[smhd]$/.test(text.trim())) return now - parseDuration(text, flag);
  throw new UsageError(`${flag}: not an RFC 3339 date-time or a time ago like 90m, 24h or 7d: ${text}`);
}

/** How long the progress waits for the running fieldhub to move before it stops following. */
const stalledAfterMs = 15_000;

/**
 * Queues the range, then follows the running fieldhub sending it (progress on
 * stderr) until every message had its first attempt; one summary line on stdout.
 * Exit 1 when some were not delivered, or nothing moved for 15 s (no fieldhub
 * running on the directory: the messages stay queued).
 */
async function resendRange(
  service: EndpointService,
  dataDir: string,
  id: string,
  range: { since: number; until: number; status: ResendStatus },
): Promise<void> {
  const { endpoint, deliveryIds } = await service.resendRange(id, range);
  const total = deliveryIds.length;
  const which = range.status === "all" ? "" : ` ${range.status}`;
  const span = `from ${isoFromMs(range.since)} to ${isoFromMs(range.until)}`;
  if (total === 0) {
    process.stdout.write(`no${which} messages of endpoint ${endpoint.id} ${span}: nothing to resend\n`);
    return;
  }
  const queued = `${total}${which} message${total === 1 ? "" : "s"} ${span}`;
  if (endpoint.status === "paused") {
    process.stdout.write(
      `queued ${queued} for ${endpoint.url}: held, the endpoint is paused; ` +
        `\`fieldhub endpoints enable --data ${dataDir} ${endpoint.id}\` sends them\n`,
    );
    return;
  }
  process.stderr.write(`queued ${queued} for ${endpoint.url}, same webhook-ids; the running fieldhub sends them\n`);
  const progress = createProgress({ label: `of ${total} sent`, unit: "messages", quiet: false, plainEveryMs: 2000 });
  let counts: DeliveryCounts = await service.resendProgress(deliveryIds);
  let lastMove = Date.now();
  let sent = 0;
  // Sent: had its first attempt (delivered, failed, or pending a retry), or set aside (held, discarded).
  const sentOf = (c: DeliveryCounts) => total - (c.pending - c.retrying);
  while (sentOf(counts) < total && Date.now() - lastMove < stalledAfterMs) {
    await Bun.sleep(250);
    counts = await service.resendProgress(deliveryIds);
    if (sentOf(counts) !== sent) {
      sent = sentOf(counts);
      lastMove = Date.now();
    }
    progress.update(sent, sent / total);
  }
  progress.done("");
  const summary = [
    `${counts.delivered} delivered`,
    counts.retrying > 0 ? `${counts.retrying} failed their attempt and are retried on schedule` : null,
    counts.failed > 0 ? `${counts.failed} failed` : null,
    counts.held > 0 ? `${counts.held} held (the endpoint was paused)` : null,
    counts.discarded > 0 ? `${counts.discarded} discarded` : null,
  ].filter((part) => part !== null);
  const waiting = counts.pending - counts.retrying;
  if (waiting > 0) {
    throw new CommandError(
      `resent ${counts.delivered} of ${queued} to ${endpoint.url}; ${waiting} not sent within ${stalledAfterMs / 1000} s: ` +
        `no fieldhub seems to be running on ${dataDir} (they stay queued and are sent when it runs)`,
    );
  }
  const line = `resent ${queued} to ${endpoint.url}: ${summary.join(", ")}`;
  if (counts.delivered < total) throw new CommandError(line);
  process.stdout.write(`${line}\n`);
}
