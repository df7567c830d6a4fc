/**
 * Workflow-id conventions (ARCHITECTURE.md, "Workflows"): job ids ARE workflow ids.
 *   `<kind>:<scope>`         a singleton (e.g. `sync-all-counties:ro`); starting it twice is
 *                            rejected by Temporal's id-reuse policy, which is the point.
 *   `<kind>:<scope>:<ulid>`  one run of a job; the ulid sorts by start time.
 * Kinds are kebab-case; scopes are free text without ':' (a SIRUTA code, a county, `global`).
 */
import { ulid } from 'ulid';

const KIND_RE = /^[a-z][a-z0-9-]*$/;
const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export interface WorkflowIdParts {
  kind: string;
  scope: string;
  /** Absent for singletons. */
  runId?: string;
  /** Set for runs started by a schedule: Temporal appends `-<RFC 3339 time>` to the action's id. */
  scheduledAt?: string;
}

// Temporal names a scheduled run `<action workflow id>-<nominal time, RFC 3339, UTC>`.
const SCHEDULED_SUFFIX_RE = /-(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)$/;

function checkKind(kind: string): void {
  if (!KIND_RE.test(kind)) throw new Error(`Invalid workflow kind "${kind}" (kebab-case expected)`);
}
function checkScope(scope: string): void {
  if (scope === '' || scope.includes(':')) throw new Error(`Invalid workflow scope "${scope}" (non-empty, no ':')`);
}

/** `<kind>:<scope>` — at most one open execution at a time. */
export function singletonWorkflowId(kind: string, scope: string): string {
  checkKind(kind);
  checkScope(scope);
  return `${kind}:${scope}`;
}

/** `<kind>:<scope>:<ulid>` — a fresh id for one job run. */
export function jobWorkflowId(kind: string, scope: string, id: string = ulid()): string {
  checkKind(kind);
  checkScope(scope);
  if (!ULID_RE.test(id)) throw new Error(`Invalid job id "${id}" (ULID expected)`);
  return `${kind}:${scope}:${id}`;
}

/**
 * Parses a workflow id of either shape (also when a schedule started it and Temporal appended
 * the nominal time); returns null for ids that follow neither convention.
 */
export function parseWorkflowId(workflowId: string): WorkflowIdParts | null {
  const scheduled = SCHEDULED_SUFFIX_RE.exec(workflowId);
  if (scheduled) {
    const base = parseWorkflowId(workflowId.slice(0, scheduled.index));
    return base && { ...base, scheduledAt: scheduled[1] };
  }
  const parts = workflowId.split(':');
  if (parts.length < 2 || parts.length > 3) return null;
  const [kind, scope, runId] = parts;
  if (!KIND_RE.test(kind) || scope === '') return null;
  if (runId === undefined) return { kind, scope };
  if (!ULID_RE.test(runId)) return null;
  return { kind, scope, runId };
}

export function isSingletonWorkflowId(workflowId: string): boolean {
  const p = parseWorkflowId(workflowId);
  return p !== null && p.runId === undefined;
}
