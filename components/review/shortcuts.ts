/** Keyboard shortcuts of the review screen: one place for the keys, the help list and the tests. */
export const VERDICT_KEYS = ['correct', 'false_negative', 'false_positive', 'unclear'] as const;
export type VerdictKey = (typeof VERDICT_KEYS)[number];

export type ShortcutAction =
  { type: 'verdict'; verdict: VerdictKey } | { type: 'note' | 'reward' | 'submit' | 'next' | 'previous' | 'skip' | 'help' | 'leave' };

export const SHORTCUTS: [keys: string, what: string][] = [
  ['1 – 4', 'verdict: correct, false negative, false positive, unclear'],
  ['n', 'write a note (Esc leaves the field)'],
  ['r', 'corrected reward'],
  ['Enter', 'submit the verdict'],
  ['j / →', 'next item (claims one from the queue)'],
  ['k / ←', 'previous item (yours, editable)'],
  ['s', 'skip: take the next item; skipped ones wait until the rest are done'],
  ['?', 'show or hide this help'],
];

export type KeyLike = { key: string; ctrlKey?: boolean; metaKey?: boolean; altKey?: boolean };

/**
 * What a key press means. While typing in a field only Esc (leave the field) and, in the
 * one-line reward field, Enter (submit) count: letters and digits are text there.
 */
export function shortcutFor(e: KeyLike, typing: 'none' | 'text' | 'line'): ShortcutAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  if (typing !== 'none') {
    if (e.key === 'Escape') return { type: 'leave' };
    if (e.key === 'Enter' && typing === 'line') return { type: 'submit' };
    return null;
  }
  const n = Number(e.key);
  if (Number.isInteger(n) && n >= 1 && n <= VERDICT_KEYS.length) return { type: 'verdict', verdict: VERDICT_KEYS[n - 1]! };
  switch (e.key) {
    case 'n':
      return { type: 'note' };
    case 'r':
      return { type: 'reward' };
    case 'Enter':
      return { type: 'submit' };
    case 'j':
    case 'ArrowRight':
      return { type: 'next' };
    case 'k':
    case 'ArrowLeft':
      return { type: 'previous' };
    case 's':
      return { type: 'skip' };
    case '?':
      return { type: 'help' };
    default:
      return null;
  }
}

/** How focus counts for shortcuts: a textarea is free text, an input a single line. */
export function typingIn(el: Element | null): 'none' | 'text' | 'line' {
  if (!el) return 'none';
  const tag = el.tagName;
  if (tag === 'TEXTAREA' || (el as HTMLElement).isContentEditable) return 'text';
  if (tag === 'INPUT' || tag === 'SELECT') return 'line';
  return 'none';
}
