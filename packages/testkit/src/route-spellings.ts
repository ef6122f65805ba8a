// Every other way to write a route's path that some server on the way might read as the route itself:
// percent-encoding (each character, upper- and lower-case hex, the whole path), case, duplicate slashes,
// dot segments, trailing slashes and dots, encoded and backslash separators, matrix parameters,
// fragments and absolute-form targets. The front door must let none of them past admission.

const hex = (ch: string, lower = false) => {
  const code = `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
  return lower ? code.toLowerCase() : code;
};

/** A route path with its parameters filled in (`:id` → a sample UUID without letters: a parameter's case is its owner's business). */
export function samplePath(routePath: string): string {
  return routePath.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000001');
}

/** Non-canonical spellings of one concrete path (no query), each different from it. */
export function routeSpellings(path: string): string[] {
  const out = new Set<string>();
  const segments = path.split('/').slice(1);
  // Each character percent-encoded on its own, upper- and lower-case hex.
  for (let i = 1; i < path.length; i++) {
    const ch = path[i]!;
    if (ch === '/') continue;
    out.add(path.slice(0, i) + hex(ch) + path.slice(i + 1));
    out.add(path.slice(0, i) + hex(ch, true) + path.slice(i + 1));
  }
  // Every character of the path encoded, slashes kept.
  out.add(
    path
      .split('/')
      .map((s) => [...s].map((c) => hex(c)).join(''))
      .join('/'),
  );
  // Double encoding of one letter.
  out.add(path.replace(/[a-z]/, (c) => `%25${hex(c).slice(1)}`));
  // Case: the whole path, each segment, the first letter of each segment.
  out.add(path.toUpperCase());
  out.add(path.toLowerCase());
  segments.forEach((segment, i) => {
    const swap = (s: string) => segments.map((x, j) => (j === i ? s : x)).join('/');
    out.add(`/${swap(segment.toUpperCase())}`);
    out.add(`/${swap(segment.charAt(0).toUpperCase() + segment.slice(1))}`);
    out.add(`/${swap(segment.toLowerCase())}`);
  });
  // Separators: duplicate slashes at each place, trailing slash, encoded slashes, backslashes.
  for (let i = 0; i < path.length; i++) {
    if (path[i] === '/') {
      out.add(`${path.slice(0, i)}//${path.slice(i + 1)}`);
      if (i > 0) {
        out.add(`${path.slice(0, i)}%2F${path.slice(i + 1)}`);
        out.add(`${path.slice(0, i)}%2f${path.slice(i + 1)}`);
        out.add(`${path.slice(0, i)}\\${path.slice(i + 1)}`);
        out.add(`${path.slice(0, i)}%5C${path.slice(i + 1)}`);
        // Dot segments that resolve back to the path.
        out.add(`${path.slice(0, i)}/.${path.slice(i)}`);
        out.add(`${path.slice(0, i)}/x/..${path.slice(i)}`);
        out.add(`${path.slice(0, i)}/%2e${path.slice(i)}`);
        out.add(`${path.slice(0, i)}/x/%2E%2E${path.slice(i)}`);
      }
    }
  }
  out.add(`/.${path}`);
  out.add(`${path}/`);
  out.add(`${path}//`);
  out.add(`${path}/.`);
  out.add(`${path}/x/..`);
  // Trailing dots, matrix parameters, fragments, encoded trailers.
  out.add(`${path}.`);
  out.add(`${path}..`);
  out.add(`${path}%2e`);
  out.add(`${path};`);
  out.add(`${path};x=1`);
  out.add(`${path}%3B`);
  out.add(`${path}#`);
  out.add(`${path}#x`);
  out.add(`${path}%23`);
  out.add(`${path}%20`);
  out.add(`${path}%09`);
  out.add(`${path}%00`);
  out.add(`${path}%3F`);
  out.add(`${path}%2F`);
  // Absolute-form request targets (RFC 9112 3.2.2), which a proxy must accept.
  out.add(`http://localhost${path}`);
  out.add(`http://localhost${path.replace(/[a-z]/, (c) => hex(c))}`);
  out.delete(path);
  return [...out];
}
