// One spelling per route. Every later reader (click admission, the rate limit, metrics, the router, the
// upstream's own router) compares paths literally, so a path that some hop could read as another
// (percent-encoding, case, duplicate slashes, dot segments, trailing slashes or dots, matrix parameters,
// fragments, backslashes) is refused here with a 400 that names the one spelling, instead of being
// rewritten: with a rewrite, each reader would have to read the rewritten value, and one that did not
// would be the bypass again (docs/decisions.md, "One spelling per route at the front door").
import { ROUTE_PREFIXES, ROUTES } from '@omc/contracts';

/** Refused in any path: what could be read as another path by a later hop. */
const FORBIDDEN = [
  /(^|\/)\.\.?(\/|$)/, // dot segments: /./ and /../
  /%2e/i, // an encoded dot (%2e%2e = ..)
  /%2f/i, // an encoded slash
  /%5c/i, // an encoded backslash
  /%25/, // double encoding (%252e...)
  /%00/, // NUL
  /\\/, // a backslash, which some servers read as a slash
  /\/\//, // empty segments
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f]/,
];
/** A percent-encoded unreserved character (RFC 3986 2.3): a second spelling of the character itself. */
const ENCODED_UNRESERVED = /%(?:[46][1-9a-f]|[57][0-9a]|3[0-9]|2d|5f|7e)/i;
/** Everything an API or socket path may hold: no route needs more. */
const API_CHARACTERS = /^[A-Za-z0-9\-._~/]*$/;
const SOCKET_PATH = '/socket.io/';

/** The path part of a request target, or undefined when it is not a plain origin-form path. */
export function requestPath(url: string | undefined): string | undefined {
  if (!url || !url.startsWith('/')) return undefined;
  const end = url.indexOf('?');
  return end === -1 ? url : url.slice(0, end);
}

const decode = (path: string) => {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
};

/** Route paths (and prefixes) split into segments, to give a path the catalogue's spelling. */
const CATALOGUE = [...new Set([...ROUTES.map((r) => r.path), ...ROUTE_PREFIXES.map((p) => p.prefix)])].map(
  (path) => path.split('/').slice(1),
);

/** The catalogue's spelling of these segments, matched without regard to case, parameters matching any. */
function catalogueSpelling(segments: string[]): string[] {
  let best: string[] | undefined;
  for (const route of CATALOGUE) {
    if (route.length > segments.length || (best && best.length >= route.length)) continue;
    const matches = route.every(
      (part, i) => part.startsWith(':') || part.toLowerCase() === segments[i]!.toLowerCase(),
    );
    if (matches) best = route;
  }
  if (!best) return segments;
  return segments.map((segment, i) => {
    const part = best[i];
    return part === undefined || part.startsWith(':') ? segment : part;
  });
}

/**
 * The one spelling of a path: decoded once, backslashes as slashes, empty and dot segments resolved,
 * trailing dots and slashes dropped, and the catalogue's case for a route or a prefix.
 */
export function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const raw of decode(path).replace(/\\/g, '/').split(/[;#]/)[0]!.split('/')) {
    let end = raw.length;
    while (end > 0 && (raw[end - 1] === '.' || /\s/.test(raw[end - 1]!))) end -= 1;
    const segment = raw.slice(0, end);
    if (raw === '..') segments.pop();
    else if (segment !== '') segments.push(segment);
  }
  if (segments[0]?.toLowerCase() === 'api') segments[0] = 'api';
  const spelled = catalogueSpelling(segments);
  if (spelled[0]?.toLowerCase() === 'socket.io') return SOCKET_PATH;
  return `/${spelled.join('/')}`;
}

const isApiScope = (canonical: string) =>
  canonical === '/api' || canonical.startsWith('/api/') || canonical === SOCKET_PATH;

/** The catalogue's paths without parameters: already their one spelling, answered without more work. */
const EXACT = new Set(ROUTES.filter((r) => !r.path.includes(':')).map((r) => r.path));

/** Why a request target is refused, or undefined when it is the one spelling of its path. */
export function pathProblem(url: string | undefined): string | undefined {
  const path = requestPath(url);
  if (path === undefined) return 'the request target must be a path';
  if (EXACT.has(path)) return undefined;
  const canonical = canonicalPath(path);
  const hint = API_CHARACTERS.test(canonical) ? ` (use ${canonical})` : '';
  if (isApiScope(canonical)) {
    if (path !== canonical || !API_CHARACTERS.test(path))
      return `${path} is not the one spelling of an API path${hint}: no percent-encoding, matching case, no empty or dot segments, no trailing slash or dot`;
    return undefined;
  }
  if (ENCODED_UNRESERVED.test(path)) return `letters, digits and -._~ must not be percent-encoded${hint}`;
  for (const pattern of FORBIDDEN)
    if (pattern.test(path))
      return 'the path must not contain dot segments, encoded separators, double encoding or a fragment';
  return undefined;
}
