// Which raw requests are clicks: the one route the click admission guards, matched before Fastify routes.
export const CLICK_PATH = '/api/game/click';

export const isClick = (method: string, url: string | undefined): boolean =>
  method === 'POST' &&
  url !== undefined &&
  url.startsWith(CLICK_PATH) &&
  (url.length === CLICK_PATH.length || url[CLICK_PATH.length] === '?');
