ALTER TABLE "workers" ADD COLUMN "cpu_percent" double precision;--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "rss_mb" double precision;--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "recent_logs" jsonb DEFAULT '[]'::jsonb NOT NULL;