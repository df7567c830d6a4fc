/** SMTP transport (MailDev locally, the firm's relay in deployment). */
import nodemailer, { type Transporter } from 'nodemailer';
import { config } from '../config';

let transport: Transporter | undefined;

export function mailTransport(): Transporter {
  transport ??= nodemailer.createTransport({
    host: config.mail.smtpHost,
    port: config.mail.smtpPort,
    secure: false,
    ignoreTLS: config.mail.embedded,
    connectionTimeout: 5000,
  });
  return transport;
}
