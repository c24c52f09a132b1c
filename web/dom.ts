// Small DOM helpers shared by the page's tabs: no framework.
export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

export function show(id: string, visible: boolean): void {
  $(id).hidden = !visible;
}

/** The page's one message line: errors, and results of actions. */
export function say(text: string | null, kind: "error" | "info" = "error"): void {
  const message = $("message");
  message.textContent = text ?? "";
  message.className = kind;
  message.hidden = text === null;
}

/** Runs an action, showing its failure as a readable message instead of losing it. */
export async function guarded(work: () => Promise<void>): Promise<void> {
  try {
    say(null);
    await work();
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Adds a cell; on a phone the table is shown as cards, so each cell carries its
 * column's header as a label (admin.css shows it).
 */
export function cell(row: HTMLTableRowElement, content: string | Node): HTMLTableCellElement {
  const td = row.insertCell();
  if (typeof content === "string") td.textContent = content;
  else td.append(content);
  const header = row.closest("table")?.tHead?.rows[0]?.cells[td.cellIndex]?.textContent ?? "";
  if (header !== "") td.dataset.label = header;
  return td;
}

/**
 * A button running `action` with its failure shown. `owner-or-admin` marks a
 * button a viewer may not use (a change, or a signing secret): the page hides it
 * for viewers, and the admin API refuses it anyway.
 */
export function button(
  label: string,
  action: () => Promise<void>,
  access: "anyone" | "owner-or-admin" = "anyone",
): HTMLButtonElement {
  const element = document.createElement("button");
  element.type = "button";
  if (access === "owner-or-admin") element.classList.add("owner-or-admin");
  element.textContent = label;
  element.onclick = () => void guarded(action);
  return element;
}

/** A status word with its colour; `group` keeps words shared by two lists apart ("active" key vs alert). */
export function badge(text: string, group = ""): HTMLSpanElement {
  const element = document.createElement("span");
  element.className = `badge ${group}${text}`;
  element.textContent = text;
  return element;
}

export function rowsOf(id: string): HTMLTableSectionElement {
  const body = $(id) as HTMLTableSectionElement;
  body.replaceChildren();
  return body;
}

/** A time as the reader's local date and time; the exact UTC value in the tooltip. */
export function timeText(iso: string | null, empty = ""): Node {
  const span = document.createElement("span");
  if (iso === null) {
    span.textContent = empty;
    return span;
  }
  const at = new Date(iso);
  span.textContent = at.toLocaleString();
  span.title = iso;
  return span;
}

/** A time with how long ago it was ("never" for null). */
export function timeWithAgo(iso: string | null): Node {
  const span = document.createElement("span");
  if (iso === null) span.textContent = "never";
  else span.append(timeText(iso), ` (${agoText(iso)})`);
  return span;
}

/** One term and its value in a facts list (`dl.facts`); the value's element gets `id`. */
export function fact(list: HTMLElement, term: string, value: string | Node, id: string): void {
  const dt = document.createElement("dt");
  dt.textContent = term;
  const dd = document.createElement("dd");
  dd.id = id;
  dd.append(value);
  list.append(dt, dd);
}

/** "12 s ago", "5 min ago": how fresh a value is, at a glance. */
export function agoText(iso: string | null, now = Date.now()): string {
  if (iso === null) return "never";
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} days ago`;
}

export function fillSelect(
  select: HTMLSelectElement,
  options: { value: string; label: string }[],
  first?: { value: string; label: string },
): void {
  const keep = select.value;
  select.replaceChildren();
  for (const option of first === undefined ? options : [first, ...options])
    select.add(new Option(option.label, option.value));
  if ([...select.options].some((option) => option.value === keep)) select.value = keep;
}

/** Checkboxes named `name`, one per value, in `container`. */
export function fillCheckboxes(
  container: HTMLElement,
  name: string,
  values: readonly string[],
  checked: boolean,
): void {
  container.replaceChildren();
  for (const value of values) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.name = name;
    input.value = value;
    // defaultChecked, so that a form reset after a submit ticks them again.
    input.defaultChecked = checked;
    label.append(input, ` ${value}`);
    container.append(label);
  }
}

/** Asks for an optional note in the page's note dialog; null when cancelled. */
export function askForNote(title: string): Promise<string | null> {
  const dialog = $("note-dialog") as HTMLDialogElement;
  const form = $("note-form") as HTMLFormElement;
  const text = form.elements.namedItem("note") as HTMLTextAreaElement;
  $("note-title").textContent = title;
  text.value = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.onclose = () => resolve(dialog.returnValue === "ok" ? text.value.trim() : null);
  });
}

/**
 * Calls `load` every `everyMs` while the tab `tabId` is on screen (and the page
 * visible), saying in `statusId` when it last worked or why it fails.
 */
export function refreshWhileShown(tabId: string, statusId: string, load: () => Promise<void>, everyMs = 2000): void {
  const tick = async () => {
    if (!$(tabId).hidden && !$("app").hidden && document.visibilityState === "visible") {
      try {
        await load();
        $(statusId).textContent = `Live: updated ${new Date().toLocaleTimeString()}`;
        $(statusId).className = "";
      } catch (error) {
        $(statusId).textContent = `Live updates failing: ${error instanceof Error ? error.message : String(error)}`;
        $(statusId).className = "error";
      }
    }
    setTimeout(() => void tick(), everyMs);
  };
  setTimeout(() => void tick(), everyMs);
}
