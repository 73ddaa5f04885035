# One image for the API, the indexer, the webhook dispatcher and the migrate step (docker-compose.yml
# picks the command).
# tsx runs the TypeScript sources directly, as `npm run api` / `npm run indexer` do locally.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY tsconfig.json ./
COPY src ./src
COPY indexer ./indexer
COPY dispatcher ./dispatcher
COPY storefront ./storefront
COPY scripts ./scripts
# The sample generator, for `npm run sample` in the container.
COPY tools ./tools
COPY migrations ./migrations
COPY mappings ./mappings
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
