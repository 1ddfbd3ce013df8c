import { describe, expect, it } from 'vitest';
import { defaultRunConfig, runConfigSchema } from '@/core/run-config';
import { checkIsolationPolicy, runtimeForTier } from './isolation';
import { runtimeOptions } from './options';
import { SandboxError } from '../types';
import { settings } from '@/core/settings';

/** A host without gVisor, whatever this one has installed: runsc at a path that does not exist. */
const here = runtimeOptions(settings());
const noGvisor = { ...here, runsc: '/nonexistent/crucible-test/runsc' };

describe('isolation policy by risk tier', () => {
  it('the default policy (bwrap for both tiers) is served here', () => {
    expect(checkIsolationPolicy(defaultRunConfig.isolation, here)).toEqual({ routine: 'bwrap', high: 'bwrap' });
    expect(checkIsolationPolicy(defaultRunConfig, here)).toEqual({ routine: 'bwrap', high: 'bwrap' });
  });

  it('maps tiers to runtimes and records the resolved name', () => {
    const policy = { routine: 'bwrap', high: 'oci:runc' };
    expect(checkIsolationPolicy(policy, here)).toEqual({ routine: 'bwrap', high: 'oci:runc' });
    expect(runtimeForTier(policy, 'high', here)).toBe('oci:runc');
  });

  it('refuses, never downgrades, when a configured runtime is missing', () => {
    expect(() => checkIsolationPolicy({ routine: 'oci:runsc', high: 'oci:kata-runtime' }, noGvisor)).toThrow(
      /routine risk → oci:runsc[\s\S]*gVisor[\s\S]*high risk → oci:kata-runtime[\s\S]*Kata/,
    );
    expect(() => checkIsolationPolicy({ routine: 'Bad Name!', high: 'bwrap' }, here)).toThrow(/not a runtime name/);
  });

  it('a run config whose high-risk runtime is missing refuses to start, naming the runtime and what to install', () => {
    const run = runConfigSchema.parse({ isolation: { routine: 'bwrap', high: 'gvisor' } });
    let err: unknown;
    try {
      checkIsolationPolicy(run, noGvisor);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SandboxError);
    expect((err as SandboxError).kind).toBe('missing_runtime');
    const msg = (err as Error).message;
    expect(msg).toMatch(/the run cannot start/);
    expect(msg).toMatch(/high risk → gvisor: the gvisor runtime \(oci:runsc\) needs gVisor's `runsc`/);
    expect(msg).toMatch(/apt-get install runsc/); // what to install
    expect(msg).toMatch(/isolation\.high=bwrap/); // or what to change
    expect(msg).not.toMatch(/routine risk/); // the installed tier is not blamed
  });
});
