// Requests exactly as written: fetch would normalise `..` and encoded characters away before sending,
// which is precisely what an attacker does not do.
import { request } from 'node:http';
import { figures, suite } from './context.js';

export interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
}

export function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  const url = new URL(suite().gatewayUrl);
  figures.requests += 1;
  figures.attacks += 1;
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: Number(url.port),
        method,
        path,
        headers,
        timeout: 10_000,
        insecureHTTPParser: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          const key = `${Math.floor((res.statusCode ?? 0) / 100)}xx`;
          figures.requestsByStatus[key] = (figures.requestsByStatus[key] ?? 0) + 1;
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text,
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, contentType: '', text: '' }));
    if (body) req.write(body);
    req.end();
  });
}
