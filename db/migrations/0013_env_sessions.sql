CREATE TABLE "env_session_requests" (
	"session_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"request" jsonb NOT NULL,
	"response" jsonb,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"answered_at" timestamp with time zone,
	CONSTRAINT "env_session_requests_session_id_seq_pk" PRIMARY KEY("session_id","seq")
);
--> statement-breakpoint
CREATE TABLE "env_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"task_id" uuid NOT NULL,
	"status" text DEFAULT 'starting' NOT NULL,
	"runtime" text NOT NULL,
	"tier" text NOT NULL,
	"tools" jsonb NOT NULL,
	"tool_call_format" text NOT NULL,
	"tool_output_bytes" integer NOT NULL,
	"idle_timeout_s" integer NOT NULL,
	"actor" text NOT NULL,
	"job_id" bigint,
	"worker_id" text,
	"runtime_used" text,
	"env_hash" text,
	"request_seq" integer DEFAULT 0 NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ready_at" timestamp with time zone,
	"last_active_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "env_session_requests" ADD CONSTRAINT "env_session_requests_session_id_env_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."env_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "env_sessions" ADD CONSTRAINT "env_sessions_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "env_sessions_status_idx" ON "env_sessions" USING btree ("status");--> statement-breakpoint
CREATE INDEX "env_sessions_job_idx" ON "env_sessions" USING btree ("job_id");