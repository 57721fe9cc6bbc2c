// buildApp: the Fastify instance with every plugin and route registered explicitly, so the URL map reads here. This
// file and src/http/ are the HTTP surface: routes validate with the contract and make one call into the operations.
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { ErrorResponse, HTTPValidationError, withOptionalDefaults } from './contract/fetch.js';
import type { AppDeps } from './http/app-deps.js';
import { meterCallers, trustProxyOption } from './http/auth.js';
import { registerErrorHandling, sendError } from './http/error-handler.js';
import { redactRequest } from './http/redact.js';
import { echoRequestIds, requestIdOf } from './http/request-id.js';
import { RequestLog } from './http/request-log.js';
import { accountRoutes } from './http/routes/account.js';
import { adminRoutes } from './http/routes/admin.js';
import { authRoutes } from './http/routes/auth.js';
import { billingRoutes } from './http/routes/billing.js';
import { cacheRoutes } from './http/routes/cache.js';
import { screenshotRoutes } from './http/routes/screenshots.js';
import { discoveryRoutes } from './http/routes/discovery.js';
import { crawlRoutes } from './http/routes/crawl.js';
import { estimateRoutes } from './http/routes/estimate.js';
import { fetchRoutes } from './http/routes/fetch.js';
import { healthRoutes } from './http/routes/health.js';
import { mcpRoutes } from './http/routes/mcp.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { oauthRoutes } from './http/routes/oauth.js';
import { READER_PATH_PARAMS, READER_ROUTE, readerRoutes } from './http/routes/reader.js';
import { searchRoutes } from './http/routes/search.js';
import { createValidatorCompiler } from './http/validator.js';
import { pageRoutes } from './pages/routes.js';
import { registerDrain } from './http/drain.js';
import { SCOPE_SUMMARIES } from './operations/oauth.js';
import { countRequests } from './metrics/http.js';
import type { Store } from './store/db.js';
import { API_VERSION } from './version.js';

export { API_VERSION };

const SECRET_HEADERS = ['x-service-key', 'cookie', 'authorization', 'x-admin-token'];

/** The HTTP surface's deps, and the account store, whose migrations run before the app answers its first request. */
export type ServerDeps = AppDeps & { store: Pick<Store, 'migrate'> };

export async function buildApp(deps: ServerDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: deps.config.LOG_LEVEL,
      redact: SECRET_HEADERS.map((name) => `req.headers["${name}"]`),
      serializers: { req: redactRequest },
    },
    logController: new RequestLog(),
    trustProxy: trustProxyOption(deps.config.TRUST_PROXY),
    bodyLimit: 1024 * 1024,
    genReqId: requestIdOf,
    frameworkErrors: sendError,
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Fetchdown',
        version: API_VERSION,
        description: 'Web fetch for AI agents: any URL as clean Markdown with a title and an exact token count.',
      },
      components: {
        securitySchemes: {
          ServiceKey: { type: 'apiKey', in: 'header', name: 'X-Service-Key' },
          SessionCookie: { type: 'apiKey', in: 'cookie', name: 'service_session' },
          AdminToken: { type: 'apiKey', in: 'header', name: 'X-Admin-Token' },
          AdminTokenQuery: { type: 'apiKey', in: 'query', name: 'token' },
          OAuth: {
            type: 'oauth2',
            description: 'POST /mcp only: the token an MCP client gets by signing its user in (docs/api.md#oauth).',
            flows: {
              authorizationCode: {
                authorizationUrl: `${deps.config.PUBLIC_BASE_URL}/oauth/authorize`,
                tokenUrl: `${deps.config.PUBLIC_BASE_URL}/oauth/token`,
                refreshUrl: `${deps.config.PUBLIC_BASE_URL}/oauth/token`,
                scopes: SCOPE_SUMMARIES,
              },
            },
          },
        },
      },
    },
    transform: ({ schema, url }) => {
      // GET /r/* takes the rest of the path as the target URL: documented as one path parameter, {url}.
      if (url === READER_ROUTE) return { schema: { ...schema, params: READER_PATH_PARAMS }, url: '/r/{url}' };
      return { schema: schema?.body ? { ...schema, body: withOptionalDefaults(schema.body) } : schema, url };
    },
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  app.addSchema(HTTPValidationError);
  app.addSchema(ErrorResponse);

  app.setValidatorCompiler(createValidatorCompiler());
  registerErrorHandling(app);
  echoRequestIds(app);
  registerDrain(app);
  countRequests(app);
  app.addHook('onReady', () => deps.store.migrate());
  await app.register(healthRoutes, { deps });
  await app.register(metricsRoutes, { deps });
  // Metered routes: X-Service-Key (or the anonymous tier) and rate limits; the operations bill the caller.
  await app.register(async (metered: FastifyInstance) => {
    meterCallers(metered, deps);
    await metered.register(fetchRoutes, { deps });
    await metered.register(readerRoutes, { deps });
    await metered.register(estimateRoutes, { deps });
    await metered.register(cacheRoutes, { deps });
    await metered.register(screenshotRoutes, { deps });
    await metered.register(searchRoutes, { deps });
    await metered.register(crawlRoutes, { deps });
  });
  await app.register(mcpRoutes, { deps });
  await app.register(oauthRoutes, { deps });
  await app.register(accountRoutes, { deps });
  await app.register(authRoutes, { deps });
  await app.register(billingRoutes, { deps });
  await app.register(adminRoutes, { deps });
  await app.register(discoveryRoutes, { deps });
  await app.register(pageRoutes, { deps });
  return app;
}
