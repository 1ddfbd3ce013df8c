import type { WheelEvent } from 'react';

/**
 * For number inputs: a wheel turned over a focused one would step its value (a typed 120
 * became 119 and was launched). Losing focus lets the wheel scroll the page instead, and the
 * value stays what was typed.
 */
export function keepValueOnWheel(e: WheelEvent<HTMLInputElement>): void {
  if (e.currentTarget.type === 'number' && document.activeElement === e.currentTarget) e.currentTarget.blur();
}
