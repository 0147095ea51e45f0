// The loading line of a page or a section. Its own module: the router's default pending component is part of the
// first load, the page frames (./PageFrame) are not.
export function Pending({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="pending" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}
