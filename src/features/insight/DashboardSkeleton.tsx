/** What a dashboard shows while its answer is on the way: `cards` grey cards. */
export function DashboardSkeleton({ cards }: { cards: number }) {
  return (
    <div className="skeleton-grid" role="status" aria-label="Loading the dashboard">
      {Array.from({ length: cards }, (_, index) => (
        <div key={index} className="skeleton-card" aria-hidden="true" />
      ))}
    </div>
  );
}
