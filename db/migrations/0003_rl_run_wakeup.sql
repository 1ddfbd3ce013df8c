-- RL loop wake-up: creating a run, or moving it to queued/running (resume), enqueues an
-- `rl.advance` job for it in the same transaction, so the job workers start or continue
-- the run without a separate scheduler process. One job per run per transaction.
CREATE OR REPLACE FUNCTION crucible_rl_wakeup() RETURNS trigger AS $$
BEGIN
  IF NEW.status IN ('queued', 'running') AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status) THEN
    INSERT INTO jobs (queue, payload, run_id, idempotency_key, priority, max_attempts)
    VALUES ('rl.advance', jsonb_build_object('runId', NEW.id), NEW.id,
            'advance:' || NEW.id || ':' || txid_current(), 10, 20)
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER runs_rl_wakeup AFTER INSERT OR UPDATE OF status ON runs
  FOR EACH ROW EXECUTE FUNCTION crucible_rl_wakeup();
