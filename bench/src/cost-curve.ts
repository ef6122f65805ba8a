// The fan-out's cost curve (cost-curve.png): at each client count, realtime's CPU per delivered message
// beside a bare `ws` server's, bytes per second per socket, memory per socket and click to screen.
import { costCurveSvg } from './chart.js';
import { TARGETS, type Results } from './report.js';
import type { FanoutPoint } from './scenarios/fanout.js';

export function costCurve(results: Results, fanout: FanoutPoint[]): string {
  const labels = fanout.map((p) =>
    p.connected < p.requested ? `${p.connected} of ${p.requested}` : String(p.connected),
  );
  return costCurveSvg(
    'One Million Clicks: cost of fan-out per player',
    `${results.date.slice(0, 16).replace('T', ' ')} UTC, ${results.machine.description}`,
    labels,
    [
      {
        title: 'Realtime CPU per delivered message',
        unit: 'µs',
        target: TARGETS.cpuMicrosPerMessage,
        series: [
          { name: 'CPU', color: '#2c7fb8', values: fanout.map((p) => p.cpuMicrosPerMessage) },
          {
            name: 'bare ws',
            color: '#969696',
            values: fanout.map((p) => p.baseline?.cpuMicrosPerMessage ?? null),
          },
        ],
      },
      {
        title: 'Bytes per second per socket',
        unit: 'B/s',
        target: TARGETS.bytesPerSocketPerSecond,
        series: [{ name: 'bytes', color: '#41ab5d', values: fanout.map((p) => p.bytesPerSocketPerSecond) }],
      },
      {
        title: 'Realtime memory per socket',
        unit: 'KiB',
        series: [
          {
            name: 'memory',
            color: '#8856a7',
            values: fanout.map((p) =>
              p.memoryPerSocketBytes === null ? null : p.memoryPerSocketBytes / 1024,
            ),
          },
        ],
      },
      {
        title: 'Click to screen',
        unit: 'ms',
        target: results.tickMs + TARGETS.clickToScreenSlackMs,
        series: [
          { name: 'p50', color: '#fd8d3c', values: fanout.map((p) => p.clickToScreen.p50Ms) },
          { name: 'p99', color: '#d7301f', values: fanout.map((p) => p.clickToScreen.p99Ms) },
        ],
      },
    ],
  );
}
