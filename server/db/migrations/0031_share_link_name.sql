-- Share links get an optional name, given by their maker to tell links to the same view apart (1 to 80 characters).
ALTER TABLE "share_links" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "share_links" ADD CONSTRAINT "share_links_name_length" CHECK (char_length("share_links"."name") BETWEEN 1 AND 80);