// Counts the answers that came from the server per cached resource, so an optimistic change is rolled
// back only when nothing newer from the server has replaced it in the meantime.
const counters = { gameState: 0, profile: 0 };
export type Resource = keyof typeof counters;

export function markServerData(resource: Resource): void {
  counters[resource] += 1;
}

export function generationOf(resource: Resource): number {
  return counters[resource];
}
