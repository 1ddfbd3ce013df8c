CREATE TABLE "models" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"architecture" text NOT NULL,
	"parameters" bigint NOT NULL,
	"dtype" text NOT NULL,
	"tokenizer_sha256" text NOT NULL,
	"weights_sha256" text NOT NULL,
	"chat_template" text,
	"config" jsonb NOT NULL,
	"files" jsonb NOT NULL,
	"bytes" bigint NOT NULL,
	"source" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "models_name_unique" UNIQUE("name")
);
