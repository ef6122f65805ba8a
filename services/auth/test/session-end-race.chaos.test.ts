import { sessionEndRace } from './session-end-race.js';

sessionEndRace(
  [
    'logout',
    'end one session',
    'sign out everywhere',
    'password change',
    'password reset',
    'email change undo',
    'refresh-token reuse',
    'suspension',
    'account deletion',
  ],
  50,
);
