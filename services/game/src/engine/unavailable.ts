import { AppError } from '@omc/service-kit';

/** The answer to a player when Redis or Postgres fails under a request: try again shortly. */
export const unavailable = () =>
  new AppError('UNAVAILABLE', 503, 'The game is briefly unavailable; please try again');
