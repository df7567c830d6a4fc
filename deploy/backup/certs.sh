#!/bin/sh
# The compose deployment's backup TLS material (docs/operations.md "Backups", compose), made once
# into <dir> by the one-shot `backup-certs` service and by test/integration/backup-compose.test.ts:
# a CA of the deployment's own; a server certificate for every name given (pgBackRest's TLS
# server on the database host, the S3 TLS front), and a client certificate with CN `workers`,
# the name pgBackRest's TLS server admits (tls-server-auth). The CA key is deleted once both are
# signed: new certificates mean a new CA (remove the volume). Keys are readable by
# $CERT_OWNER only (default postgres, uid 999 in both images), as pgBackRest wants.
# pgBackRest 2.45 matches DNS names only, so the servers are reached by name, never by address.
# Usage: certs.sh <dir> <server name>...
set -eu
dir=$1
shift
[ -s "$dir/client.crt" ] && exit 0
mkdir -p "$dir"
cd "$dir"
umask 077
san="DNS:localhost,IP:127.0.0.1"
for name in "$@"; do
  case $name in
    *[!0-9.]*) san="$san,DNS:$name" ;;
    *) san="$san,IP:$name" ;;
  esac
done
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$san" > server.ext
printf 'extendedKeyUsage=clientAuth\n' > client.ext
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=geoportal-backup-ca -keyout ca.key -out ca.crt 2>/dev/null
for who in server client; do
  cn=workers
  [ "$who" = server ] && cn=${1:-localhost}
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$cn" -keyout "$who.key" -out "$who.csr" 2>/dev/null
  openssl x509 -req -in "$who.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -extfile "$who.ext" -out "$who.crt" 2>/dev/null
done
rm -f ca.key ca.srl ./*.csr ./*.ext
chmod 644 ca.crt server.crt client.crt
chmod 600 server.key client.key
chown "${CERT_OWNER:-postgres:postgres}" server.key client.key server.crt client.crt ca.crt
