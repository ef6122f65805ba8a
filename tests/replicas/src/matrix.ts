// The chaos matrix itself, shared by the native suite (tests/replicas: processes and servers by their
// PIDs) and the containers suite (tests/run: `docker compose up --scale`): a row does one fault while
// players click and buy through the balancer; afterwards the counter is checked against Postgres' record,
// a sentinel's pack against what it paid, and every invariant (audit.ts) until the row settles or its
// bound is over. What a row does is the suite's own; how it is judged and printed is the same.
import { audit, type Findings, type Stores } from './audit.js';
import {
  buyPackSurely,
  click,
  counters,
  gameProfile,
  register,
  sleep,
  untilGameKnows,
  type ClickRecord,
  type Player,
  type PurchaseRecord,
  type Traffic,
} from './players.js';

export interface RowResult {
  row: string;
  replicas: string;
  requests: number;
  purchases: number;
  wins: number;
  lost: string[];
  doubled: string[];
  unserved: number;
  /** Clicks accepted and lost from Redis before their journal flush (their ordinals given again). */
  recounted: number;
  /** Clicks accepted in the 2 s before the fault: the bound on `recounted`. */
  recountBound: number;
  recoverySeconds: number | null;
  /** Purchases the provider took back (clawbacks) and winners whose collect is held, after the row. */
  clawbacks: number;
  heldPayouts: number;
  note: string;
}

export interface Row {
  name: string;
  /**
   * Does the fault; `buy` is when the sentinel buys (inside the window the fault puts at risk), by
   * default once a round has just begun. Resolves when the harm is done.
   */
  fault(buy: (atRoundStart?: boolean) => Promise<void>): Promise<string | void>;
}

export interface MatrixOptions {
  stores: Stores;
  traffic: Traffic;
  /** The player whose clicks probe the counter after each row. */
  probe: Player;
  /** The replicas alive now, as the matrix prints them (e.g. "2a 3g 2p 2r 2gw"). */
  replicas: () => string;
  roundTarget: number;
  signupFreeClicks: number;
  /** How long a row may take to settle (every purchase credited, every win paid, outboxes drained). */
  settleMs: number;
  /** How long a counter behind Postgres' record may last before it counts as lost (the fence's bound). */
  staleBoundMs: number;
  /** The title printed above the matrix. */
  title?: string;
  /**
   * What of the system is not healthy now (a store not answering, a replica missing or unready): an
   * empty list when all is well. Each row starts only once it is empty, so a row is never judged on
   * what an earlier row left broken; one that stays non-empty for `settleMs` fails the row, naming it.
   */
  unhealthy: () => Promise<string[]>;
}

interface Sentinel {
  player: Player;
  purchase?: PurchaseRecord;
}

export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await sleep(100);
  }
}

export class ChaosMatrix {
  readonly results: RowResult[] = [];
  /** A replica being started again while the row goes on (as Kubernetes restarts a pod): awaited. */
  restarting: Promise<void> | undefined;
  private readonly extraClicks: ClickRecord[] = [];
  private readonly extraPurchases: PurchaseRecord[] = [];
  private readonly counted = {
    lost: new Set<string>(),
    doubled: new Set<string>(),
    recounted: new Set<string>(),
  };

  constructor(private readonly o: MatrixOptions) {}

  private told() {
    return {
      clicks: [...this.o.traffic.clicks, ...this.extraClicks],
      purchases: [...this.o.traffic.purchases, ...this.extraPurchases],
    };
  }

  async winsSoFar(): Promise<number> {
    return Number(
      (await this.o.stores.query<{ n: number }>('game', 'select count(*)::int as n from winners'))[0]!.n,
    );
  }

  async succeededSoFar(): Promise<number> {
    return Number(
      (
        await this.o.stores.query<{ n: number }>(
          'payments',
          `select count(*)::int as n from purchases where status = 'succeeded'`,
        )
      )[0]!.n,
    );
  }

  /** A click of the probe player that was accepted (it buys a pack when out of clicks). */
  async probeClick(timeoutMs: number): Promise<ClickRecord | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const record = await click(this.o.probe);
      this.extraClicks.push(record);
      if (record.status === 200) return record;
      if (record.status === 403) this.extraPurchases.push(await buyPackSurely(this.o.probe, 20_000));
      else await sleep(250);
    }
    return undefined;
  }

  /** Waits for a round's start, so a pack the sentinel buys now is not lost to the round's end. */
  async nearRoundStart(): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const last = this.o.traffic.clicks.findLast((c) => c.status === 200);
      if (last && last.globalClicks! < this.o.roundTarget * 0.25 && Date.now() - last.at < 500) return;
      await sleep(50);
    }
  }

  /** A player who signs up and buys one pack and never clicks: what it sees is exactly what it was given. */
  private async newSentinel(): Promise<Sentinel> {
    const player = await register('sentinel');
    await untilGameKnows(player);
    return { player };
  }

  private async sentinelBuys(sentinel: Sentinel, atRoundStart: boolean): Promise<void> {
    if (atRoundStart) await this.nearRoundStart();
    sentinel.purchase = await buyPackSurely(sentinel.player, 30_000);
    this.extraPurchases.push(sentinel.purchase);
  }

  /**
   * The sentinel's balance against Postgres' record: its sign-up grant, and the clicks of the packs it
   * bought in the round being played. The game credits Redis before it records the purchase in Postgres,
   * so the record read before the balance is what the balance must hold at least, and the record read
   * after it what the balance may hold at most; a purchase credited between the reads (a redelivery or
   * a reconciliation landing now) makes the two differ, and the sentinel is read again, as it is when
   * the balance and the record disagree (a finding stands only once it outlasts a few reads). A round
   * that changed while reading is read again too (its pack then lapsed with the round, as the rules say).
   */
  private async checkSentinel(sentinel: Sentinel, findings: Findings): Promise<string> {
    const free = this.o.signupFreeClicks;
    for (let attempt = 0; attempt < 5; attempt++) {
      const before = await this.probeClick(20_000);
      if (!before) return 'sentinel unreadable';
      const recordedBefore = await this.sentinelRecord(sentinel, before.round!);
      const seen = await gameProfile(sentinel.player);
      const after = await this.probeClick(20_000);
      if (!after || !seen) return 'sentinel unreadable';
      // The profile's freeClicks is everything spendable: the grant plus this round's purchased clicks.
      const granted = seen.freeClicks - seen.purchasedClicks;
      if (granted < free)
        findings.lost.add(`${sentinel.player.username}'s sign-up grant: ${granted} free clicks`);
      if (granted > free)
        findings.doubled.add(`${sentinel.player.username}'s sign-up grant: ${granted} free clicks`);
      if (before.round !== after.round) continue;
      const recordedAfter = await this.sentinelRecord(sentinel, before.round!);
      if (recordedAfter !== recordedBefore) continue;
      const clicks = recordedAfter;
      // A credit Redis has and Postgres is about to record (the game is between the two) is read again.
      if (seen.purchasedClicks !== clicks && attempt < 4) {
        await sleep(500);
        continue;
      }
      if (seen.purchasedClicks < clicks)
        findings.lost.add(
          `${sentinel.player.username} paid for ${clicks} clicks in round ${before.round}, has ${seen.purchasedClicks}`,
        );
      if (seen.purchasedClicks > clicks)
        findings.doubled.add(
          `${sentinel.player.username} paid for ${clicks} clicks in round ${before.round}, has ${seen.purchasedClicks}`,
        );
      return clicks > 0
        ? 'sentinel pack checked'
        : 'sentinel pack not in the round played (lapsed, or not yet credited)';
    }
    return 'sentinel: rounds too fast to read';
  }

  /** The clicks of the packs Postgres records the sentinel bought in a round. */
  private async sentinelRecord(sentinel: Sentinel, round: number): Promise<number> {
    const [sum] = await this.o.stores.query<{ clicks: number }>(
      'game',
      `select coalesce(sum(p.clicks), 0)::int as clicks from purchases p join users u on u.id = p.user_id
        where u.username = $1 and p.round = $2`,
      [sentinel.player.username, round],
    );
    return sum?.clicks ?? 0;
  }

  /**
   * The counter never below what Postgres recorded, and no won round played again. A Redis that came
   * back older is found by the game's fence within a bound, so the probe is repeated for up to
   * staleBoundMs: a counter still behind after it is a loss. Returns how long the counter was seen
   * behind (0 when the first probe found it where Postgres has it).
   */
  private async checkCounter(findings: Findings): Promise<number> {
    const started = Date.now();
    let problems: { lost: string[]; doubled: string[] } = { lost: [], doubled: [] };
    let behindSince: number | undefined;
    do {
      const recorded = await this.o.stores.query<{ round: string; clicks: number; won: boolean }>(
        'game',
        `select r.round::text, r.clicks::int, (w.round is not null) as won from rounds r
           left join winners w on w.round = r.round`,
      );
      const now = await this.probeClick(20_000);
      if (!now) {
        findings.lost.add('no click accepted after recovery');
        return Date.now() - started;
      }
      problems = { lost: [], doubled: [] };
      const row = recorded.find((r) => r.round === String(now.round));
      if (row?.won) problems.doubled.push(`round ${now.round} was won and is played again`);
      if (row && now.globalClicks! <= row.clicks)
        problems.lost.push(
          `round ${now.round}: counter ${now.globalClicks} below the ${row.clicks} recorded`,
        );
      const newest = Math.max(0, ...recorded.filter((r) => r.won).map((r) => Number(r.round)));
      if (now.round! <= newest)
        problems.doubled.push(`round ${now.round} played after round ${newest} was won`);
      // Behind for as long as probes were refused the truth: 0 when the first one saw it.
      if (problems.lost.length + problems.doubled.length === 0)
        return behindSince ? Date.now() - behindSince : 0;
      behindSince ??= Date.now();
      await sleep(250);
    } while (Date.now() - started < this.o.staleBoundMs);
    const seconds = this.o.staleBoundMs / 1000;
    for (const f of problems.lost) findings.lost.add(`${f} after ${seconds} s`);
    for (const f of problems.doubled) findings.doubled.add(`${f} after ${seconds} s`);
    return Date.now() - started;
  }

  /** Waits until nothing is unhealthy; throws naming what still is after `settleMs`. */
  private async untilHealthy(): Promise<void> {
    const deadline = Date.now() + this.o.settleMs;
    for (;;) {
      const problems = await this.o
        .unhealthy()
        .catch((e: Error) => [`the health check failed: ${e.message}`]);
      if (problems.length === 0) return;
      if (Date.now() > deadline)
        throw new Error(
          `${this.results.length === 0 ? 'the system was not healthy before the first row' : 'the system had not recovered from the previous row'} within ${this.o.settleMs / 1000} s: ${problems.join('; ')}`,
        );
      await sleep(500);
    }
  }

  /** Runs one row and records its result (a row that throws is recorded as a loss naming the error). */
  async run(row: Row): Promise<RowResult> {
    let result: RowResult;
    try {
      await this.untilHealthy();
      result = await this.runRow(row);
    } catch (error) {
      result = {
        row: row.name,
        replicas: this.o.replicas(),
        requests: 0,
        purchases: 0,
        wins: 0,
        lost: [`the row failed: ${(error as Error).message}`],
        doubled: [],
        unserved: 0,
        recounted: 0,
        recountBound: 0,
        recoverySeconds: null,
        clawbacks: 0,
        heldPayouts: 0,
        note: '',
      };
    }
    this.results.push(result);
    return result;
  }

  private async runRow(row: Row): Promise<RowResult> {
    const { stores, traffic, settleMs } = this.o;
    const requestsBefore = counters.requests;
    const purchasesBefore = await this.succeededSoFar();
    const winsBefore = await this.winsSoFar();
    const unservedBefore = traffic.unserved.length;
    const sentinel = await this.newSentinel();
    const notes: string[] = [];
    let harmStarted = Date.now();
    const faultNote = await row.fault(async (atRoundStart = true) => {
      await this.sentinelBuys(sentinel, atRoundStart);
      harmStarted = Date.now();
    });
    if (faultNote) notes.push(faultNote);
    const harmed = Date.now();

    // Recovered: clicks accepted again and everything recorded settled where it belongs.
    let findings: Findings | undefined;
    let recoverySeconds: number | null = null;
    const accepted = await this.probeClick(settleMs);
    // At once, before traffic moves the round on: the counter against Postgres' record (a counter that
    // went back is passed again by later clicks), and the sentinel's pack while its round is still played.
    const early: Findings = {
      lost: new Set(),
      doubled: new Set(),
      pending: [],
      recounted: new Set(),
      figures: { clawbacks: 0, heldPayouts: 0 },
    };
    if (accepted) {
      const behindMs = await this.checkCounter(early);
      if (behindMs > 0) notes.push(`counter behind Postgres' record for ${(behindMs / 1000).toFixed(1)} s`);
      notes.push(await this.checkSentinel(sentinel, early));
    }
    await this.restarting;
    this.restarting = undefined;
    while (accepted && Date.now() - harmed < settleMs) {
      findings = await audit(stores, this.told()).catch(() => undefined);
      if (findings && findings.pending.length === 0) {
        recoverySeconds = (Date.now() - harmed) / 1000;
        break;
      }
      await sleep(500);
    }
    findings ??= await audit(stores, this.told());
    // What has not settled within the bound is lost.
    for (const p of findings.pending) findings.lost.add(p);
    if (!accepted) findings.lost.add('no click accepted within the bound');
    for (const f of early.lost) findings.lost.add(f);
    for (const f of early.doubled) findings.doubled.add(f);
    const unserved = traffic.unserved.slice(unservedBefore);
    if (unserved.length > 0)
      notes.push(
        `not served: ${unserved.map((u) => `${u.path} ${u.status || 'no answer'} at +${((u.at - harmStarted) / 1000).toFixed(1)} s`).join(', ')}`,
      );

    const recounted = [...findings.recounted].filter((f) => !this.counted.recounted.has(f));
    for (const f of recounted) this.counted.recounted.add(f);
    const lost = [...findings.lost].filter((f) => !this.counted.lost.has(f));
    const doubled = [...findings.doubled].filter((f) => !this.counted.doubled.has(f));
    for (const f of lost) this.counted.lost.add(f);
    for (const f of doubled) this.counted.doubled.add(f);
    return {
      row: row.name,
      replicas: this.o.replicas(),
      requests: counters.requests - requestsBefore,
      purchases: (await this.succeededSoFar()) - purchasesBefore,
      wins: (await this.winsSoFar()) - winsBefore,
      lost,
      doubled,
      unserved: unserved.length,
      recounted: recounted.length,
      recountBound: this.told().clicks.filter(
        (c) => c.status === 200 && c.at >= harmStarted - 2000 && c.at <= harmed,
      ).length,
      recoverySeconds,
      clawbacks: findings.figures.clawbacks,
      heldPayouts: findings.figures.heldPayouts,
      note: notes.join('; '),
    };
  }

  /** The matrix so far, as printed after each row. */
  format(): string {
    const rows = this.results;
    const header = [
      'row',
      'replicas',
      'requests',
      'purchases',
      'wins',
      'lost',
      'doubled',
      'unserved',
      'clicks recounted',
      'recovery s',
      'clawbacks',
      'held payouts',
    ];
    const lines = rows.map((r) => [
      r.row,
      r.replicas,
      String(r.requests),
      String(r.purchases),
      String(r.wins),
      String(r.lost.length),
      String(r.doubled.length),
      String(r.unserved),
      `${r.recounted} (of ${r.recountBound})`,
      r.recoverySeconds === null ? `>${this.o.settleMs / 1000}` : r.recoverySeconds.toFixed(1),
      String(r.clawbacks),
      String(r.heldPayouts),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
    const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
    const details = rows.flatMap((r) => [
      ...(r.note ? [`  ${r.row}: ${r.note}`] : []),
      ...r.lost.slice(0, 5).map((f) => `  ${r.row}: lost ${f}`),
      ...r.doubled.slice(0, 5).map((f) => `  ${r.row}: doubled ${f}`),
    ]);
    return [this.o.title ?? 'chaos matrix', format(header), ...lines.map(format), ...details].join('\n');
  }
}
