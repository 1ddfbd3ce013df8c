import { describe, expect, it } from 'vitest';
import { safeNextPath } from './safe-next';

describe('safeNextPath: where sign-in may send the browser', () => {
  it('follows same-origin paths, with their query and hash', () => {
    expect(safeNextPath('/runs/abc')).toBe('/runs/abc');
    expect(safeNextPath('/runs?status=running#top')).toBe('/runs?status=running#top');
    expect(safeNextPath('/admin/users')).toBe('/admin/users');
  });

  it.each([
    ['/\\evil.example'],
    ['//evil.example'],
    ['https://evil.example'],
    ['http:evil.example'],
    ['/\t/evil.example'],
    ['/\n/evil.example'],
    ['\\\\evil.example'],
    ['/.//evil.example'],
    ['/%2e//evil.example'],
    ['javascript:alert(1)'],
    [' /runs'],
    ['runs'],
    [''],
    [null],
    [undefined],
    ['/login'],
    ['/login?next=/runs'],
  ])('%j lands on /', (next) => {
    expect(safeNextPath(next)).toBe('/');
  });
});
