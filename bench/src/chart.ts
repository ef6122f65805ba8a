// The cost curve as a PNG: an SVG drawn here (four small panels, one per figure, targets dashed) and
// rasterised by resvg, which runs offline from its npm package.
import { writeFileSync } from 'node:fs';
import { Resvg } from '@resvg/resvg-js';

export interface Series {
  name: string;
  values: (number | null)[];
  color: string;
}

export interface Panel {
  title: string;
  unit: string;
  series: Series[];
  target?: number;
}

const WIDTH = 1200;
const HEIGHT = 820;
const FONT = 'DejaVu Sans, Liberation Sans, Arial, sans-serif';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

function format(value: number): string {
  if (value < 0) return `-${format(-value)}`;
  if (value >= 1000) return `${Math.round(value / 100) / 10}k`;
  if (value >= 10) return String(Math.round(value));
  return String(Math.round(value * 100) / 100);
}

function panel(p: Panel, xLabels: string[], x0: number, y0: number, w: number, h: number): string {
  const left = x0 + 60;
  const right = x0 + w - 20;
  const top = y0 + 40;
  const bottom = y0 + h - 50;
  const values = p.series
    .flatMap((s) => s.values)
    .filter((v): v is number => v !== null && Number.isFinite(v));
  const max = niceMax(Math.max(...values, p.target ?? 0, 0) * 1.1);
  // A negative figure (e.g. memory freed by a collection between two readings) gets room below zero.
  const min = Math.min(...values, 0) < 0 ? -niceMax(-Math.min(...values) * 1.1) : 0;
  const sx = (i: number) =>
    xLabels.length === 1 ? (left + right) / 2 : left + ((right - left) * i) / (xLabels.length - 1);
  const sy = (v: number) => bottom - ((bottom - top) * (v - min)) / (max - min);
  const parts: string[] = [];
  parts.push(
    `<text x="${x0 + w / 2}" y="${y0 + 22}" font-size="17" font-weight="bold" text-anchor="middle">${escapeXml(p.title)}</text>`,
  );
  for (let k = 0; k <= 4; k++) {
    const v = min + ((max - min) * k) / 4;
    parts.push(`<line x1="${left}" x2="${right}" y1="${sy(v)}" y2="${sy(v)}" stroke="#e3e3e3"/>`);
    parts.push(
      `<text x="${left - 8}" y="${sy(v) + 4}" font-size="12" text-anchor="end" fill="#555">${format(v)}</text>`,
    );
  }
  parts.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${bottom}" stroke="#888"/>`);
  parts.push(`<line x1="${left}" x2="${right}" y1="${sy(0)}" y2="${sy(0)}" stroke="#888"/>`);
  xLabels.forEach((label, i) =>
    parts.push(
      `<text x="${sx(i)}" y="${bottom + 18}" font-size="12" text-anchor="middle" fill="#333">${escapeXml(label)}</text>`,
    ),
  );
  parts.push(
    `<text x="${(left + right) / 2}" y="${bottom + 38}" font-size="12" text-anchor="middle" fill="#555">connected clients</text>`,
  );
  parts.push(
    `<text x="${x0 + 14}" y="${(top + bottom) / 2}" font-size="12" text-anchor="middle" fill="#555" transform="rotate(-90 ${x0 + 14} ${(top + bottom) / 2})">${escapeXml(p.unit)}</text>`,
  );
  if (p.target !== undefined) {
    parts.push(
      `<line x1="${left}" x2="${right}" y1="${sy(p.target)}" y2="${sy(p.target)}" stroke="#c0392b" stroke-dasharray="6 4"/>`,
    );
    parts.push(
      `<text x="${right}" y="${sy(p.target) - 5}" font-size="12" text-anchor="end" fill="#c0392b">target ${format(p.target)}</text>`,
    );
  }
  p.series.forEach((s, si) => {
    const points = s.values
      .map((v, i) => (v === null ? null : `${sx(i)},${sy(v)}`))
      .filter((v): v is string => v !== null);
    if (points.length > 1)
      parts.push(
        `<polyline points="${points.join(' ')}" fill="none" stroke="${s.color}" stroke-width="2.5"/>`,
      );
    s.values.forEach((v, i) => {
      if (v === null) return;
      parts.push(`<circle cx="${sx(i)}" cy="${sy(v)}" r="4" fill="${s.color}"/>`);
      parts.push(
        `<text x="${sx(i)}" y="${sy(v) - 9}" font-size="11" text-anchor="middle" fill="${s.color}">${format(v)}</text>`,
      );
    });
    if (p.series.length > 1) {
      parts.push(`<rect x="${left + 10 + si * 90}" y="${top - 4}" width="12" height="4" fill="${s.color}"/>`);
      parts.push(
        `<text x="${left + 26 + si * 90}" y="${top + 1}" font-size="12" fill="${s.color}">${escapeXml(s.name)}</text>`,
      );
    }
  });
  return parts.join('\n');
}

export function costCurveSvg(title: string, subtitle: string, xLabels: string[], panels: Panel[]): string {
  const cols = 2;
  const w = WIDTH / cols;
  const h = (HEIGHT - 60) / Math.ceil(panels.length / cols);
  const body = panels
    .map((p, i) => panel(p, xLabels, (i % cols) * w, 60 + Math.floor(i / cols) * h, w, h))
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="${FONT}">
<rect width="100%" height="100%" fill="white"/>
<text x="${WIDTH / 2}" y="26" font-size="20" font-weight="bold" text-anchor="middle">${escapeXml(title)}</text>
<text x="${WIDTH / 2}" y="48" font-size="13" text-anchor="middle" fill="#555">${escapeXml(subtitle)}</text>
${body}
</svg>`;
}

export function writePng(svg: string, file: string): void {
  const png = new Resvg(svg, {
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
    background: 'white',
  })
    .render()
    .asPng();
  writeFileSync(file, png);
}
