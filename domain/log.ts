/**
 * Structured logging (pino). Secrets never reach a log line: every known secret-bearing path is
 * redacted here, once, for every process of the stack.
 */
import pino, { type Logger } from 'pino';
import { config } from './config';

export const redactPaths = [
  'password',
  '*.password',
  '*.*.password',
  'token',
  '*.token',
  'accessToken',
  '*.accessToken',
  'refreshToken',
  '*.refreshToken',
  'idToken',
  '*.idToken',
  'secret',
  '*.secret',
  'clientSecret',
  '*.clientSecret',
  'cookie',
  '*.cookie',
  'cookies',
  '*.cookies',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'apiKey',
  '*.apiKey',
  '*.*.apiKey',
  'req.headers["x-api-key"]',
  'headers["x-api-key"]',
];

export const logger: Logger = pino({
  level: config.logLevel,
  base: { svc: process.env.SERVICE_NAME ?? undefined },
  redact: { paths: redactPaths, censor: '[redacted]' },
  timestamp: pino.stdTimeFunctions.isoTime,
});

export function childLogger(name: string): Logger {
  return logger.child({ mod: name });
}
