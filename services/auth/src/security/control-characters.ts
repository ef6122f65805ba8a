// Control characters have no place in a name, an email or a language code, and Postgres refuses NUL
// outright: a body carrying them is a 400 naming the field, before anything reaches the database.
// Passwords are exempt: only their hash is stored.
import { badRequest } from '@omc/service-kit';
import type { FastifyRequest } from 'fastify';

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
const EXEMPT = new Set(['password', 'currentPassword', 'newPassword']);

export async function refuseControlCharacters(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string' && !EXEMPT.has(field) && CONTROL.test(value)) {
      throw badRequest(`${field} must not contain control characters`, field);
    }
  }
}
