import { describe, expect, it } from 'vitest';
import { activeFilterCount, auditQuery, emptyAuditFilters, filtersFromSearch, searchFromFilters } from './audit-filters';

describe('audit filters → audit.list input', () => {
  it('hides sandbox.exec by default, unless that is the action asked for or the toggle is off', () => {
    expect(auditQuery(emptyAuditFilters)).toMatchObject({ excludeActions: ['sandbox.exec'], actor: undefined, action: undefined });
    expect(auditQuery({ ...emptyAuditFilters, action: 'sandbox.exec' }).excludeActions).toBeUndefined();
    expect(auditQuery({ ...emptyAuditFilters, hideSandboxExec: false }).excludeActions).toBeUndefined();
  });

  it('trims text, and sends local times as ISO instants', () => {
    const q = auditQuery({ ...emptyAuditFilters, actor: '  alice ', from: '2026-12-04T10:00', to: 'nonsense' });
    expect(q.actor).toBe('alice');
    expect(q.from).toBe(new Date('2026-12-04T10:00').toISOString());
    expect(q.to).toBeUndefined();
    expect(activeFilterCount({ ...emptyAuditFilters, actor: 'a', to: '2026-12-04T10:00' })).toBe(2);
  });
});

describe('audit filters in the URL', () => {
  it('round-trip through the query string; no filter is the plain page', () => {
    expect(searchFromFilters(emptyAuditFilters)).toBe('');
    const f = { ...emptyAuditFilters, actor: 'alice', action: 'run.*', from: '2026-12-04T10:00', hideSandboxExec: false };
    const q = searchFromFilters(f);
    expect(q).toBe('?actor=alice&action=run.*&from=2026-12-04T10%3A00&routine=show');
    expect(filtersFromSearch(new URLSearchParams(q))).toEqual(f);
    expect(filtersFromSearch(new URLSearchParams(''))).toEqual(emptyAuditFilters);
  });
});
