// GET /static/{file}: the pages' stylesheet, script and icon, read once at start-up from src/pages/static (a fixed
// list, so no path from the request ever reaches the file system).
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';

const TYPES: Record<string, string> = {
  'site.css': 'text/css; charset=utf-8',
  'site.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

const FILES = new Map(
  Object.entries(TYPES).map(([name, type]) => [
    name,
    { type, body: readFileSync(new URL(`./static/${name}`, import.meta.url)) },
  ]),
);

export const staticRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { file: string } }>('/static/:file', { schema: { hide: true } }, async (request, reply) => {
    const file = FILES.get(request.params.file);
    if (!file) return reply.code(404).type('text/plain; charset=utf-8').send('not found');
    return reply
      .headers({ 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' })
      .type(file.type)
      .send(file.body);
  });
};
