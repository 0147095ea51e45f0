import { createFileRoute } from '@tanstack/react-router';
import { requireLogin } from './-guards';
import { ScrapingPage } from '../features/scraping/ScrapingPage';

export const Route = createFileRoute('/scraping')({
  validateSearch: () => ({}),
  beforeLoad: ({ context }) => requireLogin(context),
  component: ScrapingPage,
});
