/**
 * A TLS front before the local MinIO for pgBackRest, whose S3 driver speaks HTTPS only while the
 * local MinIO serves plain HTTP (docs/operations.md "Backups"): it terminates TLS with a
 * self-signed certificate made once in the profile's data directory and pipes the bytes to
 * MinIO unchanged, so the request signatures (which cover the Host header) still match. Every
 * other client of the object store keeps talking HTTP to MinIO itself. Loopback only, except in the
 * compose deployment, where it is the `s3-tls` service on the internal network with a certificate
 * of the deployment's own CA (BACKUP_S3_TLS_HOST, BACKUP_S3_TLS_CERT_FILE, BACKUP_S3_TLS_KEY_FILE).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { config } from '../../domain/config';

function certificate(): { key: Buffer; cert: Buffer } {
  const { tlsFrontCertFile, tlsFrontKeyFile } = config.backup;
  // The compose deployment's front serves a certificate its CA signed (deploy/backup/certs.sh).
  if (tlsFrontCertFile) return { key: fs.readFileSync(tlsFrontKeyFile), cert: fs.readFileSync(tlsFrontCertFile) };
  const dir = path.join(config.dataDir, 'backup-tls');
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  if (!fs.existsSync(cert)) {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '3650', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert,
    ], { stdio: 'ignore' });
  }
  return { key: fs.readFileSync(key), cert: fs.readFileSync(cert) };
}

const upstream = new URL(config.s3.endpoint);
const server = tls.createServer(certificate(), (client) => {
  const s3 = net.connect(Number(upstream.port || 80), upstream.hostname);
  client.pipe(s3).pipe(client);
  const close = () => {
    client.destroy();
    s3.destroy();
  };
  client.on('error', close);
  s3.on('error', close);
});
server.listen(config.backup.tlsPort, config.backup.tlsFrontHost);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
