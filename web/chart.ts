// A register's recent history as a small uPlot chart (bundled into the page,
// nothing loaded from outside); live values are appended as they arrive.
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { call } from "./api.ts";
import { $, show } from "./dom.ts";

interface History {
  register_id: string;
  name: string;
  unit: string | null;
  hours: number;
  t: number[];
  v: (number | null)[];
  /** Each reading's storage-period min and max (null without an aggregate). */
  min: (number | null)[];
  max: (number | null)[];
}

type Series = (number | null)[];
let plot: uPlot | null = null;
let shown: { gatewayId: string; registerId: string; data: [number[], Series, Series, Series] } | null = null;

const container = () => $("chart-plot");

function chartWidth(): number {
  return Math.max(240, container().clientWidth);
}

export async function showChart(gatewayId: string, registerId: string): Promise<void> {
  const hours = Number(($("chart-hours") as HTMLSelectElement).value);
  const history = await call<History>("GET", `/gateways/${gatewayId}/history?register_id=${registerId}&hours=${hours}`);
  show("chart", true);
  $("chart-title").textContent = `${history.name}${history.unit === null ? "" : ` (${history.unit})`}, last ${hours} h`;
  $("chart-empty").hidden = history.t.length > 0;
  shown = { gatewayId, registerId, data: [history.t, history.v, history.max, history.min] };
  const edge = (label: string) => ({
    label,
    stroke: "rgba(37, 99, 235, 0.35)",
    width: 1,
    spanGaps: false,
    value: (_u: uPlot, v: number | null) => (v === null ? "—" : formatValue(v)),
  });
  plot?.destroy();
  plot = new uPlot(
    {
      width: chartWidth(),
      height: 220,
      series: [
        {},
        {
          label: history.name,
          stroke: "#2563eb",
          width: 2,
          spanGaps: false,
          value: (_u, v) => (v === null ? "—" : formatValue(v)),
        },
        // What was polled during each storage period, drawn as a band around the stored value.
        edge("max"),
        edge("min"),
      ],
      bands: [{ series: [2, 3], fill: "rgba(37, 99, 235, 0.15)" }],
      axes: [{}, { size: 60 }],
      legend: { live: true },
    },
    shown.data,
    container(),
  );
  $("chart").scrollIntoView({ block: "nearest" });
}

/** Adds a live value to the chart when it shows that register and the value is newer than its last point. */
export function appendLiveValue(registerId: string, latestTs: string | null, value: number | null): void {
  if (plot === null || shown === null || shown.registerId !== registerId || latestTs === null) return;
  const seconds = Date.parse(latestTs) / 1000;
  const [times, values, maxes, mins] = shown.data;
  const last = times.at(-1);
  if (last !== undefined && seconds <= last) return;
  times.push(seconds);
  values.push(value);
  // A live value is one poll: its period's band is drawn once the period is stored.
  maxes.push(null);
  mins.push(null);
  $("chart-empty").hidden = true;
  plot.setData(shown.data);
}

export function closeChart(): void {
  plot?.destroy();
  plot = null;
  shown = null;
  show("chart", false);
}

export function wireChart(): void {
  ($("chart-hours") as HTMLSelectElement).onchange = () => {
    if (shown !== null) void showChart(shown.gatewayId, shown.registerId).catch(() => undefined);
  };
  $("chart-close").onclick = closeChart;
  new ResizeObserver(() => plot?.setSize({ width: chartWidth(), height: 220 })).observe(container());
}

/** Engineering values without float noise (21.700000000000003 shows as 21.7). */
export function formatValue(value: number): string {
  return Number(value.toPrecision(10)).toLocaleString(undefined, { maximumFractionDigits: 6 });
}
