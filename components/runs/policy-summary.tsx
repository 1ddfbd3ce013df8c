import Link from 'next/link';
import type { PolicyChoice } from '@/core/run-config';
import { describePolicy } from './policy-fields';

/** A run's policy in one line: the registered model (linked to its page) and how it is trained, or the byte model. */
export function PolicySummary({ policy, testId }: { policy: PolicyChoice | undefined; testId?: string }) {
  const { model, training } = describePolicy(policy);
  return (
    <span data-testid={testId} title={model ? `${model} · ${training}` : training}>
      {model && (
        <>
          <Link className="text-accent underline" href={`/models/${encodeURIComponent(model)}`}>
            {model}
          </Link>
          {' · '}
        </>
      )}
      {training}
    </span>
  );
}
