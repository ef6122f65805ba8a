// axe-core's WCAG 2.1 A and AA rules run inside the page, and their findings in a form a person can read.
import type { AxeResults, ImpactValue } from 'axe-core';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
/** The impacts that fail the audit; moderate and minor findings are printed but do not fail it. */
export const BLOCKING: ImpactValue[] = ['serious', 'critical'];

export interface Finding {
  rule: string;
  impact: ImpactValue;
  help: string;
  target: string;
  summary: string;
  screen: string;
  language: string;
}

/** Runs axe on the whole document as it is now (the script is injected once per page load). */
export async function audit(page: Page, screen: string, language: string): Promise<Finding[]> {
  // Evaluated through the DevTools protocol, so no Content-Security-Policy stands in the way.
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(
    (tags) =>
      (window as unknown as { axe: { run: (...args: unknown[]) => Promise<AxeResults> } }).axe.run(document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      }),
    WCAG_TAGS,
  );
  return results.violations.flatMap((violation) =>
    violation.nodes.map((node) => ({
      rule: violation.id,
      impact: node.impact ?? violation.impact ?? 'minor',
      help: violation.help,
      target: node.target.join(' '),
      summary: (node.failureSummary ?? '').replace(/\s+/g, ' ').trim(),
      screen,
      language,
    })),
  );
}

/** One line per finding: rule, impact, target, screen and language, then axe's own explanation. */
export function describeFindings(findings: Finding[]): string {
  return findings
    .map(
      (f) =>
        `  [${f.impact}] ${f.rule} on ${f.screen} (${f.language}) at ${f.target}\n      ${f.help}: ${f.summary}`,
    )
    .join('\n');
}
