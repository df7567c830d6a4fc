/**
 * E-mail templates (react-email): every mail the service sends is rendered here as HTML plus a
 * plain-text part, in Romanian, with absolute links back to the item (config.app.publicUrl).
 */
import { Body, Container, Head, Heading, Hr, Html, Link, Preview, Section, Text } from '@react-email/components';
import { render } from '@react-email/render';
import type { ReactNode } from 'react';
import { config } from '../config';

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

/** A same-origin path (`/notificari`) as an absolute URL for a mail client; absolute ones pass. */
export function absoluteUrl(link: string): string {
  if (/^https?:\/\//i.test(link)) return link;
  return `${config.app.publicUrl.replace(/\/+$/, '')}/${link.replace(/^\/+/, '')}`;
}

const styles = {
  body: { backgroundColor: '#f4f5f7', fontFamily: 'Arial, Helvetica, sans-serif', color: '#1f2933' },
  container: { backgroundColor: '#ffffff', margin: '24px auto', padding: '24px', maxWidth: '600px', borderRadius: '6px' },
  h1: { fontSize: '20px', margin: '0 0 16px' },
  h2: { fontSize: '16px', margin: '20px 0 8px' },
  text: { fontSize: '14px', lineHeight: '20px', margin: '0 0 8px' },
  item: { fontSize: '14px', lineHeight: '20px', margin: '0 0 6px' },
  footer: { fontSize: '12px', color: '#6b7280', margin: '0' },
};

function Layout({ preview, title, children }: { preview: string; title: string; children: ReactNode }) {
  return (
    <Html lang="ro">
      <Head />
      <Preview>{preview}</Preview>
      <Body style={styles.body}>
        <Container style={styles.container}>
          <Heading as="h1" style={styles.h1}>
            {title}
          </Heading>
          {children}
          <Hr />
          <Text style={styles.footer}>
            Geoportal cadastral ·{' '}
            <Link href={absoluteUrl('/notificari/preferinte')}>Preferințe de notificare</Link>
          </Text>
        </Container>
      </Body>
    </Html>
  );
}

async function renderBoth(subject: string, element: ReactNode): Promise<RenderedMail> {
  const [html, text] = await Promise.all([render(element), render(element, { plainText: true })]);
  // React's web-stream renderer (used under some module loaders, e.g. jest's) can leave NUL
  // padding between chunks; render's own `pretty` strips it the same way, and PostgreSQL refuses it.
  return { subject, html: html.replaceAll('\0', ''), text: text.replaceAll('\0', '') };
}

/** One notification as an instant e-mail (subject = its title). */
export function notificationMail(n: { title: string; body: string; link?: string | null }): Promise<RenderedMail> {
  return renderBoth(
    n.title,
    <Layout preview={n.body || n.title} title={n.title}>
      {n.body ? <Text style={styles.text}>{n.body}</Text> : null}
      {n.link ? (
        <Text style={styles.text}>
          <Link href={absoluteUrl(n.link)}>Deschide în geoportal</Link>
        </Text>
      ) : null}
    </Layout>,
  );
}

export interface DigestItem {
  text: string;
  link?: string | null;
}

export interface DigestSection {
  title: string;
  items: DigestItem[];
}

/** The daily digest (or its test copy): one section per kind of item. */
export function digestMail(d: { name: string; dateLabel: string; sections: DigestSection[]; test?: boolean }): Promise<RenderedMail> {
  const subject = `${d.test ? '[Test] ' : ''}Rezumatul zilei ${d.dateLabel}`;
  const count = d.sections.reduce((n, s) => n + s.items.length, 0);
  return renderBoth(
    subject,
    <Layout preview={`${count} elemente în rezumatul de azi`} title={subject}>
      <Text style={styles.text}>Bună dimineața, {d.name}!</Text>
      {d.test ? <Text style={styles.text}>Acesta este un rezumat de test, trimis doar către adresa dumneavoastră.</Text> : null}
      {d.sections.length === 0 ? <Text style={styles.text}>Nu există nimic nou pentru dumneavoastră astăzi.</Text> : null}
      {d.sections.map((s) => (
        <Section key={s.title}>
          <Heading as="h2" style={styles.h2}>
            {s.title}
          </Heading>
          {s.items.map((item, i) => (
            <Text key={i} style={styles.item}>
              • {item.link ? <Link href={absoluteUrl(item.link)}>{item.text}</Link> : item.text}
            </Text>
          ))}
        </Section>
      ))}
    </Layout>,
  );
}

/** A report that is not an inbox item (e.g. the weekend sync's session report). */
export async function reportMail(r: { subject: string; text: string; html?: string }): Promise<RenderedMail> {
  if (r.html) return { subject: r.subject, html: r.html, text: r.text };
  const rendered = await renderBoth(
    r.subject,
    <Layout preview={r.subject} title={r.subject}>
      {r.text.split(/\n{2,}/).map((para, i) => (
        <Text key={i} style={{ ...styles.text, whiteSpace: 'pre-line' }}>
          {para}
        </Text>
      ))}
    </Layout>,
  );
  // The caller's own text is the better plain part (line breaks and all).
  return { ...rendered, text: r.text };
}
