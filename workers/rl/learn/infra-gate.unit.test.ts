import { describe, expect, it } from 'vitest';
import { infraFailure } from './infra-gate';

const ep = (status: string, error: string | null = null) => ({ status, error });

describe('infraFailure: a run whose sandboxes are broken fails instead of completing', () => {
  it('passes an iteration at or under the threshold, and ignores unfinished episodes', () => {
    expect(infraFailure([ep('scored'), ep('sandbox_error', 'x')], 0.5, 0)).toBeUndefined();
    expect(infraFailure([ep('scored'), ep('pending'), ep('running'), ep('scored')], 0.5, 0)).toBeUndefined();
    expect(infraFailure([], 0.5, 0)).toBeUndefined();
  });

  it('fails an iteration over the threshold, naming the statuses and the commonest message (without retry prefixes)', () => {
    const eps = [
      ep('sandbox_error', 'attempt 1: sandbox_error: runsc: cannot create sandbox'),
      ep('sandbox_error', 'sandbox_error: runsc: cannot create sandbox'),
      ep('env_mismatch', 'env_mismatch: quarantined'),
      ep('scored'),
    ];
    const r = infraFailure(eps, 0.5, 3);
    expect(r?.message).toMatch(/^iteration 3: 3 of 4 episodes \(75%\) were infrastructure failures \(sandbox_error ×2, env_mismatch ×1\)/);
    expect(r?.message).toMatch(/Most common \(2×\): sandbox_error: runsc: cannot create sandbox\./);
    expect(r?.data).toMatchObject({ iteration: 3, infra: 3, finished: 4, statuses: { sandbox_error: 2, env_mismatch: 1 } });
  });

  it('counts every infrastructure status and nothing else; a rate of 1 never fails', () => {
    expect(infraFailure([ep('preempted'), ep('env_mismatch'), ep('failed'), ep('scored')], 0.49, 0)).toBeDefined();
    expect(infraFailure([ep('failed'), ep('failed'), ep('scored')], 0.5, 0)).toBeUndefined(); // policy failures are not infrastructure
    expect(infraFailure([ep('sandbox_error'), ep('sandbox_error')], 1, 0)).toBeUndefined();
  });
});
