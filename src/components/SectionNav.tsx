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
}: {
  label: string;
  workspaceId: string;
  links: SectionLink[];
}) {
  return (
    <nav className="section-nav" aria-label={label}>
      {links.map((link) => (
        <Link key={link.to} to={link.to} params={{ workspaceId }} activeProps={{ 'aria-current': 'page' }}>
          {link.label}
        </Link>
      ))}
    </nav>
  );
}
