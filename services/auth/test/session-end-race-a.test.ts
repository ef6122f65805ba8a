import { sessionEndRace } from './session-end-race.js';

sessionEndRace(
  ['logout', 'end one session', 'sign out everywhere', 'password reset', 'account deletion'],
  10,
);
