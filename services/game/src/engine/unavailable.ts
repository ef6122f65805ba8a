import { ERROR_CODE } from '@omc/contracts';
import { AppError } from '@omc/service-kit';

/** The answer to a player when Redis or Postgres fails under a request: try again shortly. */
export const unavailable = () =>
  new AppError(ERROR_CODE.UNAVAILABLE, 503, 'The game is briefly unavailable; please try again');

/** The answer to a click while the journal holds all it may (Postgres has not taken it for a while). */
export const journalFull = () =>
  new AppError(
    ERROR_CODE.UNAVAILABLE,
    503,
    'The game cannot record clicks right now; please try again shortly',
  );

/**
 * The answer to the click that closed a round decided by a Redis state since rebuilt from Postgres: the
 * win was not recorded, nor the click; the round goes on from its record.
 */
export const winDropped = () =>
  new AppError(
    ERROR_CODE.UNAVAILABLE,
    503,
    'The round was restored from its record and your click was not counted; please try again',
  );
