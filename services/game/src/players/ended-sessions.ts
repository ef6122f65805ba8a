// The sessions their owners ended: service-kit's shared reader (ended-sessions.ts), which the game's
// root hook (app.ts) applies to every route that takes a token.
export {
  EndedSessions,
  ENDED_SESSIONS_LOOKBACK_MS,
  refuseEndedSessions,
  watchEndedSessions,
} from '@omc/service-kit';
