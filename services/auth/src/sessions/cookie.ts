import type { FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { REFRESH_COOKIE, REFRESH_COOKIE_PATH } from './refresh-tokens.js';

export function setRefreshCookie(reply: FastifyReply, config: Config, token: string): void {
  reply.setCookie(REFRESH_COOKIE, token, {
    path: REFRESH_COOKIE_PATH,
    httpOnly: true,
    sameSite: 'strict',
    secure: config.cookieSecure,
    maxAge: config.REFRESH_TTL_SECONDS,
  });
}

export function clearRefreshCookie(reply: FastifyReply, config: Config): void {
  reply.clearCookie(REFRESH_COOKIE, {
    path: REFRESH_COOKIE_PATH,
    httpOnly: true,
    sameSite: 'strict',
    secure: config.cookieSecure,
  });
}
