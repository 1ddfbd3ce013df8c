ALTER TABLE "reviews" ADD COLUMN "output_hash" text;--> statement-breakpoint
ALTER TABLE "reviews" ADD COLUMN "twin_of" uuid;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_twin_of_reviews_id_fk" FOREIGN KEY ("twin_of") REFERENCES "public"."reviews"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reviews_output_hash_idx" ON "reviews" USING btree ("output_hash");--> statement-breakpoint
CREATE INDEX "reviews_twin_of_idx" ON "reviews" USING btree ("twin_of");