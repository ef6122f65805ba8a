// Writes a run's results: latest.json (the record), latest.md (the tables) and, when the fan-out ran,
// cost-curve.png. Only the full run of every scenario is the record; any other run writes beside it
// (quick/ for `--quick`, partial/ for a subset), ignored by git.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePng } from './chart.js';
import { costCurve } from './cost-curve.js';
import { markdown, type Results } from './report.js';
import type { FanoutPoint } from './scenarios/fanout.js';
import { SCENARIOS, type BenchSettings } from './settings.js';

/** Writes the files into `resultsDir` or beside it; returns where, and the tables as markdown. */
export function writeResults(
  resultsDir: string,
  results: Results,
  fanout: FanoutPoint[],
  settings: BenchSettings,
  log: (line: string) => void,
): { outDir: string; table: string } {
  const partial = settings.scenarios.length < SCENARIOS.length;
  const outDir =
    settings.profile === 'quick'
      ? join(resultsDir, 'quick')
      : partial
        ? join(resultsDir, 'partial')
        : resultsDir;
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  const table = markdown(results);
  writeFileSync(join(outDir, 'latest.md'), table);
  if (fanout.length > 0) {
    const svg = costCurve(results, fanout);
    try {
      writePng(svg, join(outDir, 'cost-curve.png'));
    } catch (error) {
      log(`[bench] the chart could not be rendered: ${(error as Error).message}`);
    }
  }
  return { outDir, table };
}
