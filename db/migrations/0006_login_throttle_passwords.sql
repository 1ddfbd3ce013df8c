-- Login throttling and password changes (docs/security.md): failed sign-in counters shared by
-- all web processes, pruned once their window passes; and the forced change after an admin reset.
CREATE TABLE "login_throttle" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_failure_at" timestamp with time zone,
	"blocked_until" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"audit_window_start" timestamp with time zone,
	"audit_failures" integer DEFAULT 0 NOT NULL,
	"audit_throttled" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "must_change_password" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "login_throttle_expires_idx" ON "login_throttle" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "login_throttle_audit_window_idx" ON "login_throttle" USING btree ("audit_window_start");