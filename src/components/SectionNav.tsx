import { Link } from '@tanstack/react-router';

export interface SectionLink {
  to: string;
  label: string;
}

/** Tabs between the children of a section (insight dashboards, settings pages). */
export function SectionNav({
  label,
  workspaceId,
  links,
  search,
}: {
  label: string;
  workspaceId: string;
  links: SectionLink[];
  /** Search params every link carries (the dashboards' scope); none by default. */
  search?: Record<string, string | undefined>;
}) {
  return (
    <nav className="section-nav" aria-label={label}>
      {links.map((link) => (
        <Link
          key={link.to}
          to={link.to}
          params={{ workspaceId }}
          // A section's links go to sibling routes whose search types differ; the caller vouches for the params.
          {...(search ? { search: search as never } : {})}
          activeOptions={{ includeSearch: false }}
          activeProps={{ 'aria-current': 'page' }}
        >
          {link.label}
        </Link>
      ))}
    </nav>
  );
}
