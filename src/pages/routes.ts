// The HTML face of the service: landing page, examples, integration pages, the dashboard and their static files.
// Public pages are rendered once at start-up (they depend only on the config and the recorded examples).
import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../http/app-deps.js';
import { consentRoutes } from './consent.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { EXAMPLES } from './examples/catalog.js';
import { loadOutputs } from './examples/outputs.js';
import { examplePage, examplesIndex, notFoundPage } from './examples-pages.js';
import { html } from './html.js';
import { INTEGRATION_PAGES } from './integrations.js';
import { landingPage } from './landing.js';
import { layout, sendPage } from './layout.js';
import { staticRoutes } from './static-routes.js';

const PUBLIC_CACHE = { 'cache-control': 'public, max-age=300' };
const PAGE_SCHEMA = { tags: ['pages'], produces: ['text/html'] };

export const pageRoutes: FastifyPluginAsync<{ deps: AppDeps }> = async (app, { deps }) => {
  const base = deps.config.PUBLIC_BASE_URL;
  const outputs = loadOutputs();
  const landing = landingPage(deps.config, outputs);
  const index = examplesIndex(base);
  const examples = new Map(EXAMPLES.map((e) => [e.slug, examplePage(e, outputs, base)]));

  app.get('/', { schema: { ...PAGE_SCHEMA, summary: 'The landing page' } }, async (_request, reply) =>
    sendPage(reply, landing, 200, PUBLIC_CACHE),
  );
  app.get('/examples', { schema: { ...PAGE_SCHEMA, summary: 'The worked examples' } }, async (_request, reply) =>
    sendPage(reply, index, 200, PUBLIC_CACHE),
  );
  app.get<{ Params: { slug: string } }>(
    '/examples/:slug',
    { schema: { ...PAGE_SCHEMA, summary: 'One worked example' } },
    async (request, reply) => {
      const page = examples.get(request.params.slug);
      if (!page) return sendPage(reply, notFoundPage(base, `/examples/${request.params.slug}`), 404);
      return sendPage(reply, page, 200, PUBLIC_CACHE);
    },
  );
  for (const integration of INTEGRATION_PAGES) {
    const meta = { title: integration.title, description: integration.description, path: integration.path };
    const page = layout(
      meta,
      base,
      html`<h1>${integration.title}</h1>
        <p class="lead">${integration.description}</p>
        ${integration.body(base)}`,
    );
    app.get(integration.path, { schema: { ...PAGE_SCHEMA, summary: integration.title } }, async (_request, reply) =>
      sendPage(reply, page, 200, PUBLIC_CACHE),
    );
  }
  await app.register(staticRoutes);
  await app.register(dashboardRoutes, { deps });
  await app.register(consentRoutes, { deps });
};
