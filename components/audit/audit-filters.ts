/**
 * The audit page's filter state and how it becomes `audit.list` input. Pure so it can be
 * tested without a browser. Times come from `<input type="datetime-local">` (the browser's
 * local time, no zone) and are sent as ISO instants.
 */
export type AuditFilterState = {
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  /** datetime-local values ("2026-12-04T10:00"), empty when unset */
  from: string;
  to: string;
  /** leave out the routine sandbox.exec rows (on by default: they drown everything else) */
  hideSandboxExec: boolean;
};

export const ROUTINE_ACTION = 'sandbox.exec';

export const emptyAuditFilters: AuditFilterState = { actor: '', action: '', targetType: '', targetId: '', from: '', to: '', hideSandboxExec: true };

const localToIso = (v: string) => {
  if (!v) return undefined;
  const t = new Date(v);
  return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
};

export function auditQuery(f: AuditFilterState) {
  const trim = (s: string) => s.trim() || undefined;
  return {
    actor: trim(f.actor),
    action: trim(f.action),
    targetType: trim(f.targetType),
    targetId: trim(f.targetId),
    from: localToIso(f.from),
    to: localToIso(f.to),
    // asking for sandbox.exec itself overrides hiding it
    excludeActions: f.hideSandboxExec && f.action.trim() !== ROUTINE_ACTION ? [ROUTINE_ACTION] : undefined,
  };
}

/** How many filters narrow the list (the sandbox.exec toggle not counted: it is the default). */
export const activeFilterCount = (f: AuditFilterState) => [f.actor, f.action, f.targetType, f.targetId, f.from, f.to].filter((v) => v.trim() !== '').length;

const TEXT_KEYS = ['actor', 'action', 'targetType', 'targetId', 'from', 'to'] as const;

/** The filters a URL's query holds (`?actor=alice&action=run.*&routine=show`): a filtered view can be linked and reloaded. */
export function filtersFromSearch(params: { get(name: string): string | null }): AuditFilterState {
  const f = { ...emptyAuditFilters };
  for (const k of TEXT_KEYS) f[k] = params.get(k) ?? '';
  f.hideSandboxExec = params.get('routine') !== 'show';
  return f;
}

/** The query string for `f`: only what differs from no filter, so the plain page stays `/audit`. */
export function searchFromFilters(f: AuditFilterState): string {
  const q = new URLSearchParams();
  for (const k of TEXT_KEYS) if (f[k].trim() !== '') q.set(k, f[k].trim());
  if (!f.hideSandboxExec) q.set('routine', 'show');
  const s = q.toString();
  return s ? `?${s}` : '';
}
