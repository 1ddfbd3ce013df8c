import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { settings } from '@/db/schema';
import { appendAudit } from '@/server/audit/service';

const KEY = 'review.guidelines';

export const DEFAULT_GUIDELINES = `## Reviewing a reward

1. Read the task and its tests first, then every turn's code and what the sandbox printed.
2. Decide whether the final code does what the task asks, independent of the score:
   - **correct** — the automatic reward is right.
   - **false negative** — good work was penalised (e.g. a broken test, an environment bug, a timeout that was not the code's fault).
   - **false positive** — bad work was rewarded (e.g. a test that passes anything, a reward hack).
   - **unclear** — you cannot tell; say why in the note.
3. If the reward is wrong, give the reward it should have had.
4. Compare the environment hash with its baseline: a mismatch points to the environment, not the policy.

**Watch for bias.** Judge the code, not the run or the model that produced it; blind review hides those on purpose. Do not let a long trajectory or confident comments sway you.

**Watch for ethical problems.** If anything shown is harmful, offensive, leaks personal data or secrets, or tries to escape the sandbox, mark it unclear, describe it in the note, and tell an admin.`;

export async function getGuidelines(db: Db): Promise<{ text: string; updatedAt: Date | null; updatedBy: string | null }> {
  const [row] = await db.select().from(settings).where(eq(settings.key, KEY));
  return row
    ? { text: (row.value as { text: string }).text, updatedAt: row.updatedAt, updatedBy: row.updatedBy }
    : { text: DEFAULT_GUIDELINES, updatedAt: null, updatedBy: null };
}

export async function setGuidelines(db: Db, text: string, actor: string) {
  return db.transaction(async (tx) => {
    await tx
      .insert(settings)
      .values({ key: KEY, value: { text }, updatedBy: actor, updatedAt: new Date() })
      .onConflictDoUpdate({ target: settings.key, set: { value: { text }, updatedBy: actor, updatedAt: new Date() } });
    await appendAudit(tx, { actor, action: 'review.guidelines_update', targetType: 'settings', targetId: KEY, details: { length: text.length } });
    return { text };
  });
}
