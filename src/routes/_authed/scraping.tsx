import { createFileRoute } from '@tanstack/react-router';
import * as z from 'zod/mini';
import { ScrapingPage } from '../../features/scraping/ScrapingPage';

// Spec §2: no parameters; anything in the address's query is dropped.
export const Route = createFileRoute('/_authed/scraping')({
  validateSearch: z.object({}),
  component: ScrapingPage,
});
