import { describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import { schedulerConfigFrom, type SchedulerSettings } from './scheduler-loop';

const file = JSON.stringify({ tiers: [{ name: 'batch', rank: 1 }], reserveFraction: 0.1 });
const configFor = (env: Record<string, string>) =>
  schedulerConfigFrom(parseSettings({ CRUCIBLE_SCHEDULER_CONFIG: file, ...env }) as SchedulerSettings)({ nodes: [], now: 0 } as never);

describe('scheduler configuration from settings', () => {
  it("a config file's reserveFraction holds unless CRUCIBLE_RESERVE_FRACTION is set, which overrides it", () => {
    expect(configFor({}).reserveFraction).toBe(0.1);
    expect(configFor({ CRUCIBLE_RESERVE_FRACTION: '0.5' }).reserveFraction).toBe(0.5);
    expect(configFor({ CRUCIBLE_RESERVE_FRACTION: '' }).reserveFraction).toBe(0.1);
  });
});
