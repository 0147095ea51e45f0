import { createFileRoute } from '@tanstack/react-router';
import { SharedPage } from '@/features/insight/SharedPage';

// Public: a read-only share link of one dashboard view, its token in the fragment.
export const Route = createFileRoute('/shared')({
  component: SharedPage,
});
