# syntax=docker/dockerfile:1
# ModelGate in one image: the web console and the server bundle are built in the first stage; the image keeps
# only the bundle, the built console and the few packages the bundle loads at run time (scripts/runtime-deps.mjs).
#   docker build -t modelgate .
#   docker run -p 3000:3000 -v modelgate-data:/data -e SESSION_SECRET=... modelgate
# Node 22: Node 20 is past its end of life (April 2026), and the relay measured faster on 22 with the same code
# (README, Relay performance: "Node 22 with the flag"). The server also runs on Node 20.19 or newer.
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches the platform.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# Manifests first, so the dependency layer is reused while only source changes.
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY server/package.json server/
COPY web/package.json web/
COPY e2e/package.json e2e/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build \
  && node scripts/server-runtime.mjs \
  && mkdir -p /image/server /image/web \
  && cp -r server/dist /image/server/dist \
  && cp -r web/dist /image/web/dist \
  && node scripts/runtime-deps.mjs /image \
  && rm -rf /image/node_modules/better-sqlite3/deps /image/node_modules/better-sqlite3/src \
    /image/node_modules/better-sqlite3/build/Release/obj.target /image/node_modules/better-sqlite3/build/Release/.deps

FROM ${NODE_IMAGE}
# MALLOC_ARENA_MAX: two malloc arenas instead of one per thread (scripts/server-runtime.mjs SERVER_ENV).
ENV NODE_ENV=production \
  MALLOC_ARENA_MAX=2 \
  PORT=3000 \
  SQLITE_PATH=/data/gateway.db
WORKDIR /app
COPY --from=build /image/ ./
# The image's own unprivileged user (uid 1000) owns the data folder; nothing else is writable for it.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The flags of scripts/server-runtime.mjs SERVER_NODE_FLAGS; node is PID 1 and stops cleanly on SIGTERM.
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "--no-wasm-dynamic-tiering", "--no-wasm-tier-up", "--no-allocation-site-pretenuring", "server/dist/main.js"]
