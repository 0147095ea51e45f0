import type { ReactNode } from 'react';

export interface PageFrameProps {
  title: string;
  description?: string;
  actions?: ReactNode;
  children?: ReactNode;
}

/** The frame every feature page shares: a heading, a line on what the page is for, then its content. */
export function PageFrame({ title, description, actions, children }: PageFrameProps) {
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <div>
          <h1 id="page-title">{title}</h1>
          {description ? <p className="page-description">{description}</p> : null}
        </div>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** Shown where a page has nothing to show yet; says so plainly instead of inventing data. */
export function EmptyState({
  title,
  children,
  action,
}: {
  title: string;
  children?: ReactNode;
  /** What to do about it, e.g. a button that creates the first item. */
  action?: ReactNode;
}) {
  return (
    <div className="empty-state" role="status">
      <h2>{title}</h2>
      {children ? <p>{children}</p> : null}
      {action ? <div className="empty-state-action">{action}</div> : null}
    </div>
  );
}
