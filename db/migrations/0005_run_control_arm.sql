-- Control arms (docs/rl.md, "Control arm"): a run created with a control arm has a twin run
-- with the same config and seed but learning rate 0, which points back at it.
ALTER TABLE "runs" ADD COLUMN "control_of" uuid;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_control_of_runs_id_fk" FOREIGN KEY ("control_of") REFERENCES "public"."runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "runs_control_of_idx" ON "runs" USING btree ("control_of");