/**
 * The one card of the UI: a `section.card` labelled by its heading, with the heading and any
 * actions in `header.card__head`. Every page builds its cards through this so the markup (and
 * the accessible name each card gets) cannot drift from page to page.
 */
import { useId, type ReactNode } from 'react';

export interface CardProps {
  /** The heading; a card without one renders just the section. */
  title?: ReactNode;
  /** The heading's id, when a test or a link needs a fixed one; otherwise a generated one. */
  titleId?: string;
  /** Buttons, badges or links shown beside the title. */
  actions?: ReactNode;
  /** Further classes beside `card`. */
  className?: string;
  testId?: string;
  ariaLive?: 'polite' | 'assertive' | 'off';
  /** Heading level; 2 unless the card sits inside another titled region. */
  headingLevel?: 2 | 3 | 4;
  children?: ReactNode;
}

export function Card({ title, titleId, actions, className, testId, ariaLive, headingLevel = 2, children }: CardProps) {
  const generatedId = useId();
  const hasTitle = title !== undefined && title !== null && title !== false;
  const headingId = hasTitle ? (titleId ?? generatedId) : undefined;
  const Heading = `h${headingLevel}` as 'h2' | 'h3' | 'h4';
  return (
    <section
      className={className ? `card ${className}` : 'card'}
      aria-labelledby={headingId}
      aria-live={ariaLive}
      data-testid={testId}
    >
      {hasTitle && (
        <header className="card__head">
          <Heading id={headingId} className="card__title">
            {title}
          </Heading>
          {actions}
        </header>
      )}
      {children}
    </section>
  );
}
