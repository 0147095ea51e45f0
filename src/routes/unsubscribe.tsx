import { createFileRoute } from '@tanstack/react-router';
import { UnsubscribePage } from '@/features/alerts/UnsubscribePage';

// Public: an alert e-mail's unsubscribe link, its token in the fragment.
export const Route = createFileRoute('/unsubscribe')({
  component: UnsubscribePage,
});
