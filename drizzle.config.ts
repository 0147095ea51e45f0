import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './server/db/schema.ts',
    './server/db/social-schema.ts',
    './server/db/scraping-schema.ts',
    './server/db/billing-schema.ts',
    './server/db/analytics-schema.ts',
    './server/db/alerts-schema.ts',
    './server/db/tracking-schema.ts',
    './server/db/lists-schema.ts',
    './server/db/tags-schema.ts',
  ],
  out: './server/db/migrations',
});
