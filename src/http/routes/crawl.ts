// POST /map, and crawls as jobs: POST /crawl (202 and where to look), GET /crawl/{id} (status, counts, pages),
// GET /crawl/{id}/errors, DELETE /crawl/{id}. One call into the crawl operations each.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CrawlCreated,
  CrawlErrors,
  CrawlId,
  CrawlPageQuery,
  CrawlRequest,
  CrawlStatus,
  MapRequest,
  MapResult,
} from '../../contract/crawl.js';
import { inBody, inQuery } from '../../errors.js';
import type { AppDeps } from '../app-deps.js';
import { responses } from '../responses.js';

export const crawlRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  const crawling = deps.operations.crawling;
  // POST /crawl answers 202 (a job was made), not 200: the same error shapes, the created crawl under 202.
  const { 200: created, ...errors } = responses(CrawlCreated, [401, 402]);
  const accepted = { 202: created!, ...errors };
  app.post(
    '/map',
    {
      schema: {
        summary: "List a site's URLs",
        description:
          "The site's URLs with where each was found: its sitemaps (robots.txt's Sitemap lines or /sitemap.xml, " +
          "indexes and gzipped sitemaps), its llms.txt and the start page's links; in scope (the registrable " +
          'domain, include_paths and exclude_paths), each once; ranked by relevance to `search` when given. 1 credit.',
        tags: ['sites'],
        body: MapRequest,
        response: responses(MapResult, [402, 403, 502, 504]),
      },
    },
    async (request) => crawling.map(request.caller, request.body, inBody),
  );
  app.post(
    '/crawl',
    {
      schema: {
        summary: 'Start a crawl of a site',
        description:
          'Reads up to `limit` pages of a site as a job, each page priced and billed like a fetch, and answers 202 ' +
          'at once: GET `status_url` for progress and pages, or give a `webhook`. Needs an API key.',
        tags: ['sites'],
        body: CrawlRequest,
        response: accepted,
      },
    },
    async (request, reply) => reply.code(202).send(await crawling.startCrawl(request.caller, request.body, inBody)),
  );
  app.get(
    '/crawl/:id',
    {
      schema: {
        summary: "A crawl's status, counts and pages",
        description: 'Pages in the order they were read, `limit` at a time; pass `next_cursor` as `cursor` for more.',
        tags: ['sites'],
        params: CrawlId,
        querystring: CrawlPageQuery,
        response: responses(CrawlStatus, [401, 404]),
      },
    },
    async (request) => crawling.crawlStatus(request.caller, request.params.id, request.query, inQuery),
  );
  app.get(
    '/crawl/:id/errors',
    {
      schema: {
        summary: "A crawl's pages that could not be read",
        description: 'Failed pages, pages robots.txt refused and URLs the SSRF guard blocked, with why.',
        tags: ['sites'],
        params: CrawlId,
        querystring: CrawlPageQuery,
        response: responses(CrawlErrors, [401, 404]),
      },
    },
    async (request) => crawling.crawlErrors(request.caller, request.params.id, request.query, inQuery),
  );
  app.delete(
    '/crawl/:id',
    {
      schema: {
        summary: 'Cancel a crawl',
        description: 'Nothing new starts; pages being read finish; nothing more is charged.',
        tags: ['sites'],
        params: CrawlId,
        response: responses(CrawlStatus, [401, 404]),
      },
    },
    async (request) => crawling.cancelCrawl(request.caller, request.params.id),
  );
};
