ALTER TABLE "episodes" ADD COLUMN "grading" jsonb;--> statement-breakpoint
ALTER TABLE "turns" ADD COLUMN "tests" jsonb;--> statement-breakpoint
ALTER TABLE "turns" ADD COLUMN "tool_calls" jsonb;--> statement-breakpoint
ALTER TABLE "turns" ADD COLUMN "workspace_diff" text;--> statement-breakpoint
CREATE INDEX "audit_log_actor_idx" ON "audit_log" USING btree ("actor","seq");--> statement-breakpoint
CREATE INDEX "audit_log_action_idx" ON "audit_log" USING btree ("action","seq");--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" USING btree ("at");
