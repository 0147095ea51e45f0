import { createFileRoute } from '@tanstack/react-router';
import * as z from 'zod/mini';
import { scrapingGuard } from '../-guards';
import { ScrapingPage } from '@/features/scraping/ScrapingPage';

// Spec §2: no parameters; anything in the address's query is dropped.
export const Route = createFileRoute('/_authed/scraping')({
  validateSearch: z.object({}),
  // Staff only: anyone else is told so and sent on to their own workspace.
  beforeLoad: ({ context, preload }) => scrapingGuard(context, preload),
  component: ScrapingPage,
});
