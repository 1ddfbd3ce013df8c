import type { LogLevel } from '@/core/log-records';
import { LEVEL_CLASSES } from './log-filters';

/** A record's level, coloured: routine levels quiet, warn amber, error and fatal red. */
export function LevelBadge({ level }: { level: LogLevel }) {
  return (
    <span
      className={`inline-block rounded px-1.5 py-px font-mono text-[11px] font-semibold uppercase ${LEVEL_CLASSES[level] ?? ''}`}
      data-testid="log-level"
      data-level={level}
    >
      {level}
    </span>
  );
}
