// The baseline of the cached /fetch row (bench/serving.ts), in a process of its own so that its CPU is its own: a bare
// Fastify route (the app's Fastify version, no hooks, logging, validation or plugins) that answers POST /fetch with
// the very bytes of a cached answer, read from the file named by the first argument (`{}` without one). Prints its
// address as JSON. Also the baseline of the start-up and idle rows (bench/idle.ts), bundled as the app is.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const bytes = process.argv[2] ? readFileSync(process.argv[2], 'utf8') : '{}';
const bare = Fastify();
bare.post('/fetch', async (_request, reply) => reply.type('application/json; charset=utf-8').send(bytes));
await bare.listen({ port: 0, host: '127.0.0.1' });
process.on('SIGTERM', () => process.exit(0));
process.stdout.write(
  JSON.stringify({ bare: `http://127.0.0.1:${(bare.server.address() as { port: number }).port}` }) + '\n',
);
