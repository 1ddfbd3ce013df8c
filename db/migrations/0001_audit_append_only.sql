-- The audit log is append-only: ordinary UPDATE/DELETE are refused. Someone with
-- superuser rights can still disable this trigger; the hash chain detects that case.
CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
--> statement-breakpoint
-- Wake idle workers when a job is enqueued (LISTEN crucible_jobs).
CREATE OR REPLACE FUNCTION jobs_notify() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('crucible_jobs', NEW.queue);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER jobs_notify_insert AFTER INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION jobs_notify();
