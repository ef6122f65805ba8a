import { sessionEndRace } from './session-end-race.js';

sessionEndRace(['password change', 'email change undo', 'refresh-token reuse', 'suspension'], 10);
