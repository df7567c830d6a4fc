#!/bin/sh
# Run once by the postgis image when it creates the store's data directory (mounted into
# /docker-entrypoint-initdb.d by docker-compose.yml): lets the `db-replica` service stream the WAL.
# The image's own pg_hba.conf admits every database but not replication connections.
set -e
echo "host replication ${POSTGRES_USER} all scram-sha-256" >> "$PGDATA/pg_hba.conf"
