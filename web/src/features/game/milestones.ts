import type { GameRules, Milestone } from '@omc/contracts';

export interface MilestoneProgress {
  next: Milestone;
  /** Where the current stretch starts (the previous milestone, or 0). */
  from: number;
  ratio: number;
}

/** Every milestone of the round in order; the target, which wins the pot, is the last one. */
export function allMilestones(rules: GameRules): Milestone[] {
  const all: Milestone[] = rules.milestones.filter((m) => m.at <= rules.roundTarget);
  if (!all.some((m) => m.at === rules.roundTarget)) all.push({ at: rules.roundTarget, winsPot: true });
  return all.sort((a, b) => a.at - b.at);
}

/** The next milestone of the round, from the server's rules. */
export function milestoneProgress(rules: GameRules, globalClicks: number): MilestoneProgress {
  const all = allMilestones(rules);
  const next = all.find((m) => m.at > globalClicks) ?? all[all.length - 1]!;
  const from = all
    .filter((m) => m.at <= globalClicks && m.at < next.at)
    .reduce((max, m) => Math.max(max, m.at), 0);
  const span = next.at - from;
  const ratio = span > 0 ? Math.min(1, Math.max(0, (globalClicks - from) / span)) : 1;
  return { next, from, ratio };
}
