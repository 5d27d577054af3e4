# Production image of the USSD/SMS purchase gateway.
# Build: docker build -t ussd-gateway .
# Run:   docker run -p 3000:3000 -e PURCHASE_API_BASE_URL=... -e REDIS_URL=redis://redis:6379 ussd-gateway
# Without PURCHASE_API_BASE_URL the container runs the embedded sandbox (demo mode).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY locales ./locales
COPY src ./src
COPY machines ./machines
COPY bench ./bench
# The build copies Lua scripts and locales into dist/ beside the compiled modules.
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# Start the worker instead with: docker run --no-healthcheck ... node dist/src/worker.js
# (the worker serves no HTTP: the health check above would mark it unhealthy and get it restarted).
CMD ["node", "dist/src/main.js"]
