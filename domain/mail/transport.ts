/** SMTP transport (MailDev locally, the firm's relay in deployment). */
import nodemailer, { type Transporter } from 'nodemailer';
import { config } from '../config';

export interface SmtpTarget {
  host: string;
  port: number;
}

const transports = new Map<string, Transporter>();

/** One pooled-free transport per SMTP target; default config.mail (tests aim workers at their own MailDev). */
export function mailTransport(target?: SmtpTarget): Transporter {
  const host = target?.host ?? config.mail.smtpHost;
  const port = target?.port ?? config.mail.smtpPort;
  const key = `${host}:${port}`;
  let t = transports.get(key);
  if (!t) {
    t = nodemailer.createTransport({
      host,
      port,
      secure: false,
      ignoreTLS: target ? true : config.mail.embedded,
      connectionTimeout: 5000,
      greetingTimeout: 5000,
      socketTimeout: 20_000,
    });
    transports.set(key, t);
  }
  return t;
}
