/** One entry of a facts list (`<dl>`): its label and value, wrapped so the grid keeps the two paired. */
import type { ReactNode } from 'react';

export function Fact({ label, testId, children }: { label: ReactNode; testId?: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}
