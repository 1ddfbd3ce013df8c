CREATE TABLE "alert_delivery_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"notification_id" bigint NOT NULL,
	"attempt" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"http_status" integer,
	"error" text,
	"ok" boolean NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_groups" (
	"group_key" text PRIMARY KEY NOT NULL,
	"labels" jsonb NOT NULL,
	"notified" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"notified_at" timestamp with time zone,
	"seq" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_notifications" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"group_key" text NOT NULL,
	"seq" integer NOT NULL,
	"receiver" text NOT NULL,
	"kind" text NOT NULL,
	"alerts" jsonb NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "alert_silences" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"matchers" jsonb NOT NULL,
	"reason" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"ended_by" text
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"fingerprint" text NOT NULL,
	"rule" text NOT NULL,
	"severity" text NOT NULL,
	"labels" jsonb NOT NULL,
	"summary" text NOT NULL,
	"value" double precision,
	"state" text NOT NULL,
	"run_id" uuid,
	"group_key" text NOT NULL,
	"active_since" timestamp with time zone NOT NULL,
	"fired_at" timestamp with time zone,
	"resolved_at" timestamp with time zone,
	"last_evaluated_at" timestamp with time zone NOT NULL,
	"inhibited_by" text,
	"silenced_by" uuid,
	"acknowledged_by" text,
	"acknowledged_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "log_records" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"level" text NOT NULL,
	"msg" text NOT NULL,
	"host" text NOT NULL,
	"worker_id" text,
	"process" text NOT NULL,
	"pid" integer NOT NULL,
	"run_id" uuid,
	"episode_id" uuid,
	"job_id" bigint,
	"fields" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_delivery_attempts" ADD CONSTRAINT "alert_delivery_attempts_notification_id_alert_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."alert_notifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_delivery_attempts_notification_idx" ON "alert_delivery_attempts" USING btree ("notification_id");--> statement-breakpoint
CREATE UNIQUE INDEX "alert_notifications_once_idx" ON "alert_notifications" USING btree ("receiver","group_key","seq");--> statement-breakpoint
CREATE INDEX "alert_notifications_due_idx" ON "alert_notifications" USING btree ("state","next_attempt_at");--> statement-breakpoint
CREATE INDEX "alert_silences_expires_idx" ON "alert_silences" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_fingerprint_idx" ON "alerts" USING btree ("fingerprint");--> statement-breakpoint
CREATE INDEX "alerts_state_idx" ON "alerts" USING btree ("state");--> statement-breakpoint
CREATE INDEX "alerts_run_idx" ON "alerts" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "log_records_at_idx" ON "log_records" USING btree ("at");--> statement-breakpoint
CREATE INDEX "log_records_run_idx" ON "log_records" USING btree ("run_id","at");--> statement-breakpoint
CREATE INDEX "log_records_episode_idx" ON "log_records" USING btree ("episode_id","at");--> statement-breakpoint
CREATE INDEX "log_records_worker_idx" ON "log_records" USING btree ("worker_id","at");