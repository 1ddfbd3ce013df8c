CREATE TABLE "artifact_chunks" (
	"sha256" text NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "artifact_chunks_sha256_seq_pk" PRIMARY KEY("sha256","seq")
);
--> statement-breakpoint
CREATE TABLE "artifacts" (
	"sha256" text PRIMARY KEY NOT NULL,
	"size" bigint NOT NULL,
	"chunks" integer NOT NULL,
	"published_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "policy_versions" ALTER COLUMN "checkpoint_path" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "image_sha256" text;--> statement-breakpoint
ALTER TABLE "policy_versions" ADD COLUMN "bytes" bigint;--> statement-breakpoint
ALTER TABLE "episodes" ADD COLUMN "host" text;--> statement-breakpoint
ALTER TABLE "episodes" ADD COLUMN "worker_id" text;