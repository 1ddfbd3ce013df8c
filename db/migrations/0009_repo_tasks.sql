CREATE TABLE "repo_tasks" (
	"task_id" uuid PRIMARY KEY NOT NULL,
	"workspace_sha256" text NOT NULL,
	"hidden_tests" jsonb NOT NULL,
	"setup" text,
	"test_command" text,
	"fail_to_pass" jsonb NOT NULL,
	"pass_to_pass" jsonb NOT NULL,
	"gold_patch" text,
	"difficulty" text
);
--> statement-breakpoint
CREATE TABLE "repo_workspaces" (
	"sha256" text PRIMARY KEY NOT NULL,
	"files" jsonb NOT NULL,
	"file_count" integer NOT NULL,
	"total_bytes" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "kind" text DEFAULT 'io' NOT NULL;--> statement-breakpoint
ALTER TABLE "repo_tasks" ADD CONSTRAINT "repo_tasks_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repo_tasks" ADD CONSTRAINT "repo_tasks_workspace_sha256_repo_workspaces_sha256_fk" FOREIGN KEY ("workspace_sha256") REFERENCES "public"."repo_workspaces"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "repo_tasks_workspace_idx" ON "repo_tasks" USING btree ("workspace_sha256");