// The migration tests every service runs: an operator can undo every migration and redo it (each down step
// leaves the schema as it was before its up step, on a copy of the migrated template), and the migrate
// command reports status and refuses a bad step count. Covers whatever migrations the service lists.
import { createDb, runMigrationCommand } from '@omc/service-kit';
import type { Migration } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, migrationRoundTrip } from './index.js';

export function describeMigrations(service: string, migrations: Record<string, Migration>): void {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  describe(`${service} migrations`, () => {
    it('undo one by one to an empty schema and redo to the same schema', async () => {
      const trip = await migrationRoundTrip(database.url, migrations);
      expect(trip.undone.slice().sort()).toEqual(Object.keys(migrations).sort());
      expect(trip.emptied).toEqual([]);
      expect(trip.up).toEqual(trip.down);
    });

    it('the migrate command reports status, and refuses a bad step count without touching anything', async () => {
      const db = createDb(database.url, { max: 1 });
      const lines: string[] = [];
      try {
        const out = (line: string) => lines.push(line);
        expect(await runMigrationCommand({ service, argv: ['status'], db, migrations, out })).toBe(0);
        expect(await runMigrationCommand({ service, argv: ['down', 'all'], db, migrations, out })).toBe(2);
      } finally {
        await db.destroy();
      }
      const text = lines.join('\n').split('\n');
      expect(text[0]).toBe(`${service}: ${Object.keys(migrations).length} applied, 0 pending`);
      expect(text.at(-1)).toBe('down takes a positive number of steps, got "all"');
    });
  });
}
