// "No secret values committed": every value that a Secret (or a compose credential) holds must be a
// placeholder, a development-only marker, or carry no credential at all.
const PLACEHOLDER = /REPLACE_ME|dev-only|change-me|example\.(com|internal)/i;

/** Why a value looks like a real secret, or undefined when it is harmless. */
export function realLookingSecret(key: string, value: string): string | undefined {
  if (value.includes('-----BEGIN')) return `${key} holds a PEM key`;
  if (PLACEHOLDER.test(value)) {
    // A URL may carry a placeholder host but a real password: check the password itself.
    const password = urlPassword(value);
    if (password && !PLACEHOLDER.test(password)) return `${key} holds a URL with a password`;
    return undefined;
  }
  const password = urlPassword(value);
  if (password) return `${key} holds a URL with a password`;
  if (/^[a-z]+:\/\//i.test(value)) return undefined; // a URL without credentials
  if (/^[a-z0-9_.-]{1,32}$/i.test(value) && !/(PASSWORD|SECRET|PRIVATE|TOKEN)/i.test(key)) return undefined; // a name
  return `${key} holds a value that is neither a placeholder nor marked development-only`;
}

function urlPassword(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.password ? decodeURIComponent(url.password) : undefined;
  } catch {
    return undefined;
  }
}
