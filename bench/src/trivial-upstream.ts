// The baseline's upstream: the least a service can do for POST /api/game/click (a constant JSON), so
// that the gateway in front of it measures the cost of the edge itself on this machine, in this run.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const answer = JSON.stringify({ globalClicks: 1, freeClicks: 1 });

app.post('/api/game/click', async (_request, reply) => reply.type('application/json').send(answer));
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/readyz', async () => ({ status: 'ok' }));

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void app.close().then(() => process.exit(0)));
}
