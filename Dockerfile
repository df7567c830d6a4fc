# One image for the web process, the workers and the simulators (the command differs).
# Node.js 24 LTS, the major of .node-version that every local process runs on.
# pgBackRest (Debian's, the version deploy/postgres/Dockerfile installs: the workers take backups
# through the database host's pgBackRest TLS server) runs as `postgres`, uid 999 as in the database
# image, so the files a restore writes into the database's volume are the server's; PostgreSQL's
# server binaries replay the WAL of a restore (`restore` service). No cluster is created here.
FROM node:24-bookworm
RUN groupadd --system --gid 999 postgres \
 && useradd --system --uid 999 --gid postgres --home-dir /var/lib/postgresql --shell /bin/sh postgres \
 && mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/geoportal.conf \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      gdal-bin ghostscript qpdf python3-venv postgresql-client postgresql-15 pgbackrest \
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
