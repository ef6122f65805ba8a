// Paths are taken literally: anything that could be read as another path by a later hop (dot segments,
// encoded slashes or dots, backslashes, double encoding, NUL) is refused before routing, so only the
// public routes are ever reached.
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

/** The path part of a request target, or undefined when it is not a plain origin-form path. */
export function requestPath(url: string | undefined): string | undefined {
  if (!url || !url.startsWith('/')) return undefined;
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/** Why a request target is refused, or undefined when it is a plain path. */
export function pathProblem(url: string | undefined): string | undefined {
  const path = requestPath(url);
  if (path === undefined) return 'the request target must be a path';
  for (const pattern of FORBIDDEN)
    if (pattern.test(path))
      return 'the path must not contain dot segments, encoded separators or double encoding';
  return undefined;
}
