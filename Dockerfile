# Production image of the USSD/SMS purchase gateway, on the current Node LTS (24).
# Build: docker build -t ussd-gateway .
# Run:   docker run --stop-timeout 40 -p 3000:3000 -e NODE_ENV=production \
#          -e PURCHASE_API_BASE_URL=... -e DATABASE_URL=postgres://gateway@db:5432/gateway \
#          -e REDIS_URL=redis://redis:6379 ... ussd-gateway
# Worker: docker run --stop-timeout 40 -e HEALTH_PORT=3001 -e DATABASE_URL=... ... ussd-gateway \
#          node --max-semi-space-size=64 dist/src/worker.js
# The records (purchases, agents, floats, the audit trail, the day's spend) live in the PostgreSQL
# that DATABASE_URL names (DATABASE_SCHEMA picks a schema): that is what to back up. Production
# refuses to start without it; each process applies the migrations shipped in
# dist/src/records/migrations at start, under an advisory lock (instances starting together apply
# them once). Redis keeps only what may be lost: sessions, rate windows, queues. The embedded
# database under DATA_DIR is for a laptop, not for this image (no volume is declared; /app is
# read-only): a throw-away demo with EMBEDDED_SANDBOX=true runs with -e DATA_DIR=memory://.
# A graceful stop lets a running confirm finish (up to 35 s); Docker's default is 10 s, hence
# --stop-timeout 40. Production refuses the embedded sandbox, in-memory stores, the SMS outbox
# and callbacks without a secret or an allow-list unless explicitly allowed (see
# docs/operations.md, Production).

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY locales ./locales
COPY src ./src
COPY machines ./machines
COPY bench ./bench
# The build copies Lua scripts, SQL migrations and locales into dist/ beside the compiled modules. Test data stays
# out of the image: the wire-case tables (channels/ussd/*/cases.ts, wire-cases.ts) are left out by
# tsconfig.build.json, and the build fails here if one reached dist/ all the same.
RUN npm run build && npm prune --omit=dev \
  && if find dist \( -name 'cases.js*' -o -name 'wire-cases.js*' \) | grep .; then exit 1; fi

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# The application belongs to root and is read-only to the user it runs as: a compromised
# process cannot rewrite its own code.
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json ./
RUN chmod -R a-w /app
USER node
EXPOSE 3000
# The gateway answers /healthz on PORT; the worker on WORKER_HEALTH_PORT (3001): run it with
# HEALTH_PORT=3001 so this check probes the right port.
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.HEALTH_PORT||process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# A larger young generation: a hop allocates short-lived objects (request, record, snapshot), and
# with the default 16 MB semi-space they were promoted and collected again (see docs/performance.md).
CMD ["node", "--max-semi-space-size=64", "dist/src/main.js"]
