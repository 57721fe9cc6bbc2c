// The dashboard's usage chart: credits per day this month as an SVG drawn on the server (no script, no library),
// with a text alternative, scaled to a round maximum.
import { html, type Html } from './html.js';

const WIDTH = 640;
const HEIGHT = 180;
const PAD = { left: 44, right: 8, top: 10, bottom: 24 };

/** The smallest 1, 2 or 5 × 10^n at or above the value, so the axis reads in round numbers. */
function roundUp(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((m) => m * power >= value) ?? 10) * power;
}

export function usageChart(daily: { date: string; credits: number }[]): Html {
  const max = roundUp(Math.max(0, ...daily.map((d) => d.credits)));
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotWidth / Math.max(daily.length, 1);
  const total = daily.reduce((sum, d) => sum + d.credits, 0);
  const bars = daily.map((d, i) => {
    const h = (d.credits / max) * plotHeight;
    const x = PAD.left + i * slot + slot * 0.15;
    return html`<rect
      class="bar"
      x="${x.toFixed(1)}"
      y="${(PAD.top + plotHeight - h).toFixed(1)}"
      width="${(slot * 0.7).toFixed(1)}"
      height="${h.toFixed(1)}"
      ><title>${d.date}: ${d.credits} credits</title></rect
    >`;
  });
  const labels = daily
    .filter((_, i) => i === 0 || (i + 1) % 5 === 0)
    .map(
      (d) =>
        html`<text
          x="${(PAD.left + daily.indexOf(d) * slot + slot / 2).toFixed(1)}"
          y="${HEIGHT - 6}"
          text-anchor="middle"
          >${d.date.slice(8)}</text
        >`,
    );
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title">
    <title id="chart-title">Credits used per day this month: ${total} in all over ${daily.length} days</title>
    <line
      class="axis"
      x1="${PAD.left}"
      y1="${PAD.top + plotHeight}"
      x2="${WIDTH - PAD.right}"
      y2="${PAD.top + plotHeight}"
    />
    <line class="grid" x1="${PAD.left}" y1="${PAD.top}" x2="${WIDTH - PAD.right}" y2="${PAD.top}" />
    <text x="${PAD.left - 6}" y="${PAD.top + 4}" text-anchor="end">${max}</text>
    <text x="${PAD.left - 6}" y="${PAD.top + plotHeight}" text-anchor="end">0</text>
    ${bars}${labels}
  </svg>`;
}
