import { describe, expect, it } from 'vitest';
import { defaultRunConfig } from '@/server/runs/run-config';
import { checkIsolationPolicy, runtimeForTier } from './isolation';

describe('isolation policy by risk tier', () => {
  it('the default policy (bwrap for both tiers) is served here', () => {
    expect(checkIsolationPolicy(defaultRunConfig.isolation)).toEqual({ routine: 'bwrap', high: 'bwrap' });
  });

  it('maps tiers to runtimes and records the resolved name', () => {
    const policy = { routine: 'bwrap', high: 'oci:runc' };
    expect(checkIsolationPolicy(policy)).toEqual({ routine: 'bwrap', high: 'oci:runc' });
    expect(runtimeForTier(policy, 'high')).toBe('oci:runc');
  });

  it('refuses, never downgrades, when a configured runtime is missing', () => {
    expect(() => checkIsolationPolicy({ routine: 'oci:runsc', high: 'oci:kata-runtime' })).toThrow(/routine risk → oci:runsc[\s\S]*gVisor[\s\S]*high risk → oci:kata-runtime[\s\S]*Kata/);
    expect(() => checkIsolationPolicy({ routine: 'Bad Name!', high: 'bwrap' })).toThrow(/not a runtime name/);
  });
});
