import { describe, expect, it } from 'vitest';
import { shortcutFor } from './shortcuts';

describe('shortcutFor', () => {
  it('maps digits to verdicts and letters to actions outside fields', () => {
    expect(shortcutFor({ key: '2' }, 'none')).toEqual({ type: 'verdict', verdict: 'false_negative' });
    expect(shortcutFor({ key: '4' }, 'none')).toEqual({ type: 'verdict', verdict: 'unclear' });
    expect(shortcutFor({ key: '5' }, 'none')).toBeNull();
    expect(shortcutFor({ key: 'ArrowRight' }, 'none')).toEqual({ type: 'next' });
    expect(shortcutFor({ key: 'k' }, 'none')).toEqual({ type: 'previous' });
    expect(shortcutFor({ key: 'Enter' }, 'none')).toEqual({ type: 'submit' });
    expect(shortcutFor({ key: 's' }, 'none')).toEqual({ type: 'skip' });
  });
  it('never fires while typing a note, except Esc', () => {
    for (const key of ['1', 'j', 'n', 's', 'Enter', '?']) expect(shortcutFor({ key }, 'text')).toBeNull();
    expect(shortcutFor({ key: 'Escape' }, 'text')).toEqual({ type: 'leave' });
  });
  it('lets Enter submit from the reward field but not digits', () => {
    expect(shortcutFor({ key: 'Enter' }, 'line')).toEqual({ type: 'submit' });
    expect(shortcutFor({ key: '1' }, 'line')).toBeNull();
  });
  it('ignores modified keys (browser shortcuts)', () => {
    expect(shortcutFor({ key: 'r', ctrlKey: true }, 'none')).toBeNull();
  });
});
