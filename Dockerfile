# One image for the web process, the workers and the simulators (the command differs).
# Node.js 24 LTS, the major of .node-version that every local process runs on.
FROM node:24-bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      gdal-bin ghostscript qpdf python3-venv postgresql-client \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/pmtiles && /opt/pmtiles/bin/pip install --no-cache-dir pmtiles==3.8.1
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN PRISMA_SCHEMA_ENGINE_BINARY=/bin/true npx prisma generate && npx remix vite:build
ENV NODE_ENV=production PMTILES_VENV=/opt/pmtiles
EXPOSE 3000
CMD ["npx", "tsx", "api/server.ts"]
