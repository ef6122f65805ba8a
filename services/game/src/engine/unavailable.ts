import { AppError } from '@omc/service-kit';

/** The answer to a player when Redis or Postgres fails under a request: try again shortly. */
export const unavailable = () =>
  new AppError('UNAVAILABLE', 503, 'The game is briefly unavailable; please try again');

/** The answer to a click while the journal holds all it may (Postgres has not taken it for a while). */
export const journalFull = () =>
  new AppError('UNAVAILABLE', 503, 'The game cannot record clicks right now; please try again shortly');
