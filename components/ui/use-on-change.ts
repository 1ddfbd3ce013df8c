'use client';
import { useEffect, useRef } from 'react';

/**
 * Calls `onChange` when `value` moves from one defined value to another, not when it first
 * appears: a page whose data was just fetched with the value does not fetch it again.
 */
export function useOnChange(value: string | undefined, onChange: () => void) {
  const prev = useRef<string | undefined>(undefined);
  const latest = useRef(onChange);
  useEffect(() => {
    latest.current = onChange;
  });
  useEffect(() => {
    if (value === undefined) return;
    const before = prev.current;
    prev.current = value;
    if (before !== undefined && before !== value) latest.current();
  }, [value]);
}
