// buildApp: the Fastify instance with every plugin and route registered explicitly, so the URL map reads here.
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { meterCallers, trustProxyOption } from './http/auth.js';
import { registerErrorHandling } from './http/error-handler.js';
import { redactRequest } from './http/redact.js';
import { RequestLog } from './http/request-log.js';
import { accountRoutes } from './http/routes/account.js';
import { adminRoutes } from './http/routes/admin.js';
import { authRoutes } from './http/routes/auth.js';
import { cacheRoutes } from './http/routes/cache.js';
import { discoveryRoutes } from './http/routes/discovery.js';
import { estimateRoutes } from './http/routes/estimate.js';
import { fetchRoutes } from './http/routes/fetch.js';
import { healthRoutes } from './http/routes/health.js';
import { mcpRoutes } from './http/routes/mcp.js';
import { searchRoutes } from './http/routes/search.js';
import { ErrorResponse, HTTPValidationError, withOptionalDefaults } from './http/schemas.js';
import { createValidatorCompiler } from './http/validator.js';
import { registerDrain } from './http/drain.js';
import { registerMetrics } from './metrics/http.js';
import { runInRequest } from './util/request-context.js';
import type { Services } from './services/index.js';
import { API_VERSION } from './version.js';

export { API_VERSION };

export async function buildApp(services: Services): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: services.config.LOG_LEVEL,
      redact: ['req.headers["x-service-key"]', 'req.headers.cookie', 'req.headers.authorization', 'req.headers["x-admin-token"]'],
      serializers: { req: redactRequest },
    },
    logController: new RequestLog(),
    trustProxy: trustProxyOption(services.config.TRUST_PROXY),
    bodyLimit: 1024 * 1024,
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
        },
      },
    },
    transform: ({ schema, url }) => ({ schema: schema?.body ? { ...schema, body: withOptionalDefaults(schema.body) } : schema, url }),
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  app.addSchema(HTTPValidationError);
  app.addSchema(ErrorResponse);

  app.setValidatorCompiler(createValidatorCompiler());
  registerErrorHandling(app);
  app.addHook('onRequest', (request, _reply, done) => runInRequest(request.id, done));
  registerDrain(app);
  registerMetrics(app, { token: services.config.METRICS_TOKEN });
  app.addHook('onReady', () => services.store.migrate());
  await app.register(healthRoutes, { services });
  // Metered routes: X-Service-Key (or the anonymous tier), rate limits, and a meter that bills the caller.
  await app.register(async (metered: FastifyInstance) => {
    meterCallers(metered, services);
    await metered.register(fetchRoutes, { services });
    await metered.register(estimateRoutes, { services });
    await metered.register(cacheRoutes, { services });
    await metered.register(searchRoutes, { services });
    await metered.register(mcpRoutes, { services });
  });
  await app.register(accountRoutes, { services });
  await app.register(authRoutes, { services });
  await app.register(adminRoutes, { services });
  await app.register(discoveryRoutes, { services });
  return app;
}
