CREATE TABLE "run_compute" (
	"run_id" uuid NOT NULL,
	"phase" text NOT NULL,
	"cpu_seconds" double precision DEFAULT 0 NOT NULL,
	"gpu_seconds" double precision DEFAULT 0 NOT NULL,
	"jobs" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "run_compute_run_id_phase_pk" PRIMARY KEY("run_id","phase")
);
--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "cpu_phase_seconds" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "run_compute" ADD CONSTRAINT "run_compute_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;