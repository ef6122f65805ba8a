// Mixed traffic: players clicking (and buying when their clicks run out), a privileged player closing
// rounds (its pots go to the house), winners collecting, two admins paying out the house, and sockets
// connecting and dropping. Every outcome is recorded so the invariants can be checked against what the
// clients were told.
import {
  checkout,
  click,
  collect,
  collectHouse,
  newKey,
  setPayoutEmail,
  untilGameKnows,
  verifyAdmin,
  verifyEmails,
  type ClickRecord,
  type CollectRecord,
  type PurchaseRecord,
} from './actions.js';
import { grantRole, loginAdmin, registerPlayer, sleep, type Player } from './http.js';
import { watch, type Watcher } from './sockets.js';

export interface LoadOptions {
  players: number;
  sockets: number;
  /** Pause between one player's actions (keeps a 2-core machine responsive). */
  pauseMs: number;
}

export interface Cast {
  admin: Player;
  closer: Player;
  players: Player[];
}

const AMOUNTS = ['0.99', '0.99', '0.99', '1.99', '4.99', '9.99'];

/** Signs up the players of a load once; a suite reuses them across scenarios. */
export async function castPlayers(count: number): Promise<Cast> {
  const admin = await loginAdmin();
  const closer = await grantRole(admin.token, await registerPlayer('closer'), 'superuser');
  const players: Player[] = [];
  for (let i = 0; i < count; i++) players.push(await registerPlayer('load'));
  for (const p of [closer, ...players]) await untilGameKnows(p);
  // Each confirms its payout email from the link mailed to its own address, all at once.
  await Promise.all([closer, ...players, admin].map((p) => setPayoutEmail(p)));
  // Collecting needs a verified email: every one of them uses the link in the mail, as a player would.
  await verifyEmails([closer, ...players]);
  await verifyAdmin(admin);
  return { admin, closer, players };
}

export class MixedLoad {
  readonly clicks: ClickRecord[] = [];
  readonly purchases: PurchaseRecord[] = [];
  readonly collects: CollectRecord[] = [];
  readonly watchers: Watcher[] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly cast: Cast,
    private readonly options: LoadOptions,
  ) {}

  start(): void {
    this.running = true;
    for (let i = 0; i < this.options.sockets; i++) this.watchers.push(watch());
    this.loops = [
      ...this.cast.players.map((p, i) => this.playerLoop(p, i)),
      this.closerLoop(),
      this.houseLoop(),
      this.socketChurn(),
    ];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  closeSockets(): void {
    for (const w of this.watchers) w.close();
  }

  /** Requests that got no answer or a 5xx since `since` (ms epoch). */
  failuresSince(since: number): number {
    return this.clicks.filter((c) => c.at >= since && (c.status === 0 || c.status >= 500)).length;
  }

  private async playerLoop(player: Player, index: number): Promise<void> {
    let lastCollect = Date.now() + index * 300;
    while (this.running) {
      const record = await click(player);
      this.clicks.push(record);
      if (record.status === 403) {
        // Out of clicks: buy a pack, as a player would, with a key so a retry never pays twice.
        const amount = AMOUNTS[(index + this.purchases.length) % AMOUNTS.length]!;
        this.purchases.push(await checkout(player, amount, newKey()));
      } else if (record.status === 0 || record.status >= 500) {
        await sleep(200);
      }
      if (Date.now() - lastCollect > 3000) {
        lastCollect = Date.now();
        this.collects.push(await collect(player));
      }
      await sleep(this.options.pauseMs);
    }
  }

  private async closerLoop(): Promise<void> {
    while (this.running) {
      const record = await click(this.cast.closer);
      this.clicks.push(record);
      if (record.won) this.collects.push(await collect(this.cast.closer));
      await sleep(record.status === 200 ? this.options.pauseMs : 200);
    }
  }

  private async houseLoop(): Promise<void> {
    while (this.running) {
      await sleep(4000);
      if (this.running) this.collects.push(await collectHouse(this.cast.admin));
    }
  }

  private async socketChurn(): Promise<void> {
    let turn = 0;
    while (this.running) {
      await sleep(1500);
      if (!this.running || this.watchers.length === 0) break;
      // Drop one socket and open another, as tabs close and open.
      const index = turn++ % this.watchers.length;
      this.watchers[index]!.close();
      this.watchers[index] = watch();
    }
  }
}
