ALTER TABLE "jobs" ADD COLUMN "tier" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "workload_queue" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "request" jsonb;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "queued_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "admitted_node" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "admitted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "borrowing" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "preempted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "preempted_by" bigint;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "preemptions" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "last_requeue_reason" text;--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "node" text;--> statement-breakpoint
CREATE INDEX "jobs_scheduled_idx" ON "jobs" USING btree ("state","tier","admitted_node");--> statement-breakpoint
CREATE INDEX "jobs_preempted_by_idx" ON "jobs" USING btree ("preempted_by");--> statement-breakpoint
CREATE INDEX "workers_node_idx" ON "workers" USING btree ("node");