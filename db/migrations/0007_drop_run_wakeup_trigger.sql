-- The RL loop's wake-up moves from a trigger (0003) into TypeScript: server/runs/lifecycle.ts
-- enqueues the `rl.advance` job in the same transaction that creates a run or moves it to
-- queued/running (create, start, resume), next to the status change, its run event and its
-- audit row, where a reader of the lifecycle finds it. Dropping the trigger keeps each
-- transition from enqueuing that job twice.
DROP TRIGGER IF EXISTS runs_rl_wakeup ON runs;--> statement-breakpoint
DROP FUNCTION IF EXISTS crucible_rl_wakeup();
