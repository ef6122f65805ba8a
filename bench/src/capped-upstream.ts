// A stand-in game of fixed capacity for the refusals bench: at most CONCURRENCY clicks are served at a
// time, each for SERVICE_MS (a timer, no CPU), the rest wait in line. Offered more than it can take,
// its answers slow down as a saturated game's do, and the gateway in front of it starts refusing.
import { createServer } from 'node:http';

const concurrency = Number(process.env.CONCURRENCY ?? 4);
const serviceMs = Number(process.env.SERVICE_MS ?? 10);
const answer = JSON.stringify({ globalClicks: 1, freeClicks: 1 });
let busy = 0;
const line: (() => void)[] = [];
const next = () => {
  if (busy >= concurrency) return;
  const run = line.shift();
  if (!run) return;
  busy += 1;
  setTimeout(() => {
    busy -= 1;
    run();
    next();
  }, serviceMs);
};

const server = createServer((req, res) => {
  req.resume();
  if (req.url?.startsWith('/healthz') || req.url?.startsWith('/readyz')) {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  line.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
  next();
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
