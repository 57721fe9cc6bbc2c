# Fetchdown's container image: the HTTP API (and MCP over Streamable HTTP at /mcp) on port 8080, with Debian's
# Chromium for the browser fetcher. The build stage runs the commands the tests run on a checkout (npm ci, whose
# prepare script is npm run build); the image keeps production dependencies only and runs as the unprivileged node user.
# Configure it with the environment variables of docs/operations.md § Configuration; no secret is baked in.

FROM node:20-bookworm-slim AS build
# better-sqlite3 falls back to compiling from source when no prebuilt binary can be downloaded.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY patches ./patches
COPY src ./src
RUN npm ci --no-audit --no-fund \
  && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# tini as PID 1 passes SIGTERM on to Node, whose handler drains in-flight requests before exiting.
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium tini ca-certificates fonts-liberation \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir /data \
  && chown node:node /data
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data \
    CHROMIUM_PATH=/usr/bin/chromium
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
