// The suite's figures: every test file reports what it did, the global setup adds them up and prints
// them at the end (faults injected, requests made, invariants checked, violations, recovery times).

export interface Recovery {
  fault: string;
  /** From the restart of the stopped part until every process is ready and a socket hears the game again. */
  recoveryMs: number;
  /** From the stop until recovered: the whole outage the players saw, restart included (1 s down on purpose). */
  outageMs: number;
  /** Requests of the load that failed while the part was down (answered 5xx or not at all). */
  failedDuringFault: number;
}

export interface Figures {
  startupMs: number;
  totalMs: number;
  faultsInjected: number;
  faults: string[];
  requests: number;
  requestsByStatus: Record<string, number>;
  clicksAccepted: number;
  purchases: number;
  collects: number;
  roundsWon: number;
  socketsOpened: number;
  attacks: number;
  invariantsChecked: number;
  violations: string[];
  recoveries: Recovery[];
  loadSeconds: number;
  clicksLostInRedisCrash: number[];
  /** Wrong passwords one account took, from distinct addresses, before it was locked. */
  bruteForceGuessesBeforeLock: number;
  /** Websocket connections one address held through the gateway before the next was refused (WS_MAX_PER_IP). */
  socketsOneAddressHolds: number;
  /** Requests of the mixed load (nothing broken) that got a 5xx or no answer. */
  unansweredInLoad: number;
  /** Wrong passwords evaluated (401) of 200 sent 100 at a time for one account from one address. */
  concurrentGuessesPerLockWindow: number;
  /** Worst event-loop delay one hostile request caused, per process (ms), and a plain request's worst. */
  eventLoopWorstMs: Record<string, number>;
  eventLoopBaselineMs: number;
  /** Each injection point of a payout or a checkout, and whether it settled exactly once. */
  faultMatrix: string[];
  /** Role changes followed at once by a click and a profile read with the old token, and how many saw the old role. */
  roleChangesChecked: number;
  staleRoleReads: number;
  /** Stolen-token uses tried on money and account routes after a reset, an undo or an ended session. */
  staleTokenUsesTried: number;
  /** Of those, the ones that were not refused with 401 (the token outlived the security event). */
  tokensOutlivingRecovery: number;
  /** How long after the owner ended a session its token's clicks were refused, in ms. */
  endedSessionClicksRefusedMs: number;
  /** Email changes a thief asked for that could still be confirmed after the owner's reset. */
  pendingChangesAfterReset: number;
  /**
   * Completed payouts whose PayPal email the account had not confirmed from its email before the payout,
   * of those checked (each money check reads the whole record: merged by the largest).
   */
  payoutsToUnconfirmedAddress: number;
  payoutsCheckedForConfirmation: number;
  /** Tokens, cookies and passwords of the account journey found in any process's log, of those searched. */
  tokensInLogs: number;
  secretsSearched: number;
  /** Mailed tokens of the account journey found in a stream message or a table row, of those searched. */
  tokensAtRest: number;
  tokensAtRestSearched: number;
  /** Each service's NATS user: the subjects it may publish, and another's subject it was refused. */
  busPermissions: string[];
  /** Other spellings of catalogue routes sent, and how many were answered by anyone but the gateway's 400. */
  routeSpellingsTried: number;
  routeSpellingsPastAdmission: number;
  /** 600 concurrent clicks on the click route's own spelling and on `%63lick`: shed and reaching the game. */
  clickShedBySpelling: string;
}

export function emptyFigures(): Figures {
  return {
    startupMs: 0,
    totalMs: 0,
    faultsInjected: 0,
    faults: [],
    requests: 0,
    requestsByStatus: {},
    clicksAccepted: 0,
    purchases: 0,
    collects: 0,
    roundsWon: 0,
    socketsOpened: 0,
    attacks: 0,
    invariantsChecked: 0,
    violations: [],
    recoveries: [],
    loadSeconds: 0,
    clicksLostInRedisCrash: [],
    bruteForceGuessesBeforeLock: 0,
    socketsOneAddressHolds: 0,
    unansweredInLoad: 0,
    concurrentGuessesPerLockWindow: 0,
    eventLoopWorstMs: {},
    eventLoopBaselineMs: 0,
    faultMatrix: [],
    roleChangesChecked: 0,
    staleRoleReads: 0,
    staleTokenUsesTried: 0,
    tokensOutlivingRecovery: 0,
    endedSessionClicksRefusedMs: 0,
    pendingChangesAfterReset: 0,
    payoutsToUnconfirmedAddress: 0,
    payoutsCheckedForConfirmation: 0,
    tokensInLogs: 0,
    secretsSearched: 0,
    tokensAtRest: 0,
    tokensAtRestSearched: 0,
    busPermissions: [],
    routeSpellingsTried: 0,
    routeSpellingsPastAdmission: 0,
    clickShedBySpelling: '',
  };
}

export function mergeFigures(into: Figures, part: Partial<Figures>): void {
  for (const key of [
    'unansweredInLoad',
    'requests',
    'clicksAccepted',
    'purchases',
    'collects',
    'roundsWon',
    'socketsOpened',
    'attacks',
    'invariantsChecked',
    'loadSeconds',
    'roleChangesChecked',
    'staleRoleReads',
    'staleTokenUsesTried',
    'tokensOutlivingRecovery',
    'pendingChangesAfterReset',
    'tokensInLogs',
    'secretsSearched',
    'tokensAtRest',
    'tokensAtRestSearched',
    'routeSpellingsTried',
    'routeSpellingsPastAdmission',
  ] as const) {
    into[key] += Number(part[key] ?? 0);
  }
  for (const [status, n] of Object.entries(part.requestsByStatus ?? {}))
    into.requestsByStatus[status] = (into.requestsByStatus[status] ?? 0) + n;
  into.faultsInjected += Number(part.faultsInjected ?? 0);
  into.faults.push(...(part.faults ?? []));
  into.payoutsToUnconfirmedAddress = Math.max(
    into.payoutsToUnconfirmedAddress,
    Number(part.payoutsToUnconfirmedAddress ?? 0),
  );
  into.payoutsCheckedForConfirmation = Math.max(
    into.payoutsCheckedForConfirmation,
    Number(part.payoutsCheckedForConfirmation ?? 0),
  );
  into.bruteForceGuessesBeforeLock = Math.max(
    into.bruteForceGuessesBeforeLock,
    Number(part.bruteForceGuessesBeforeLock ?? 0),
  );
  into.concurrentGuessesPerLockWindow = Math.max(
    into.concurrentGuessesPerLockWindow,
    Number(part.concurrentGuessesPerLockWindow ?? 0),
  );
  for (const [process, ms] of Object.entries(part.eventLoopWorstMs ?? {})) {
    into.eventLoopWorstMs[process] = Math.max(into.eventLoopWorstMs[process] ?? 0, ms);
  }
  into.faultMatrix.push(...(part.faultMatrix ?? []));
  into.busPermissions.push(...(part.busPermissions ?? []));
  into.eventLoopBaselineMs = Math.max(into.eventLoopBaselineMs, Number(part.eventLoopBaselineMs ?? 0));
  into.endedSessionClicksRefusedMs = Math.max(
    into.endedSessionClicksRefusedMs,
    Number(part.endedSessionClicksRefusedMs ?? 0),
  );
  into.socketsOneAddressHolds = Math.max(
    into.socketsOneAddressHolds,
    Number(part.socketsOneAddressHolds ?? 0),
  );
  if (part.clickShedBySpelling) into.clickShedBySpelling = part.clickShedBySpelling;
  into.violations.push(...(part.violations ?? []));
  into.recoveries.push(...(part.recoveries ?? []));
  into.clicksLostInRedisCrash.push(...(part.clicksLostInRedisCrash ?? []));
}

export function formatFigures(f: Figures): string {
  const statuses = Object.entries(f.requestsByStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
  const worst = f.recoveries.reduce((m, r) => Math.max(m, r.recoveryMs), 0);
  const worstOutage = f.recoveries.reduce((m, r) => Math.max(m, r.outageMs), 0);
  const lines = [
    '',
    '===== reliability figures =====',
    `system start-up            ${(f.startupMs / 1000).toFixed(1)} s; whole run ${(f.totalMs / 1000).toFixed(1)} s`,
    `faults injected            ${f.faultsInjected}${f.faults.length ? ` (${f.faults.join(', ')})` : ''}`,
    `requests made              ${f.requests} (${statuses || 'none'})`,
    `clicks accepted            ${f.clicksAccepted}; purchases ${f.purchases}; collects ${f.collects}; rounds won ${f.roundsWon}`,
    `sockets opened             ${f.socketsOpened}`,
    `attack requests            ${f.attacks}; wrong passwords taken before lock-out ${f.bruteForceGuessesBeforeLock}`,
    `guesses per lock window    ${f.concurrentGuessesPerLockWindow} of 200 wrong passwords sent 100 at a time (allowance 5)`,
    `event loop per request     worst hostile request ${
      Object.entries(f.eventLoopWorstMs)
        .map(([p, ms]) => `${p} ${ms.toFixed(1)} ms`)
        .join(', ') || 'n/a'
    }; a plain request ${f.eventLoopBaselineMs.toFixed(1)} ms (budget 20 ms over it)`,
    `role read-your-writes      ${f.roleChangesChecked} role changes, each followed at once by a click and a profile read: ${f.staleRoleReads} saw the old role`,
    `stolen token vs recovery   ${f.staleTokenUsesTried} uses of a token on money and account routes after a reset, an undo or an ended session: ${f.tokensOutlivingRecovery} not refused; an ended session's clicks refused after ${f.endedSessionClicksRefusedMs} ms; pending email changes alive after a reset ${f.pendingChangesAfterReset}`,
    `payouts to an unconfirmed address: ${f.payoutsToUnconfirmedAddress} (of ${f.payoutsCheckedForConfirmation} completed payouts, each checked against the address its account confirmed from its email before)`,
    `money fault matrix         ${f.faultMatrix.join('; ') || 'n/a'}`,
    `sockets one address holds  ${f.socketsOneAddressHolds || 'n/a'} (the next is refused; other suite files' sockets from this host included)`,
    `route spellings that reach a service past admission: ${f.routeSpellingsPastAdmission} (of ${f.routeSpellingsTried} other spellings of catalogue routes)`,
    `click spellings under load ${f.clickShedBySpelling || 'n/a'}`,
    `mixed load                 ${f.loadSeconds} s; requests unanswered or 5xx in it ${f.unansweredInLoad}`,
    `tokens found in logs       ${f.tokensInLogs} of ${f.secretsSearched} tokens, cookies and passwords of the account journey (register, verify, reset, change email, undo)`,
    `tokens found on the bus or at rest after the journey: ${f.tokensAtRest} (of ${f.tokensAtRestSearched} mailed tokens, searched in every stream message and every table row of every service)`,
    `subjects each service may publish${f.busPermissions.length ? `\n  - ${f.busPermissions.join('\n  - ')}` : ' n/a'}`,
    `invariants checked         ${f.invariantsChecked}`,
    `violations                 ${f.violations.length}${f.violations.length ? `\n  - ${f.violations.join('\n  - ')}` : ''}`,
    `recovery after each fault  ${f.recoveries.map((r) => `${r.fault} ${(r.recoveryMs / 1000).toFixed(1)} s (outage ${(r.outageMs / 1000).toFixed(1)} s, ${r.failedDuringFault} clicks refused)`).join(', ') || 'none'}`,
    `worst recovery             ${(worst / 1000).toFixed(1)} s after the part was back; worst outage ${(worstOutage / 1000).toFixed(1)} s`,
    `clicks lost in Redis crash ${f.clicksLostInRedisCrash.length ? f.clicksLostInRedisCrash.join(', ') : 'n/a'}`,
    '===============================',
  ];
  return lines.join('\n');
}
