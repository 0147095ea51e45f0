// The saved queries as a table: name (a link to its dashboards), query text, author, last edit, the last 7 days'
// mentions with a sparkline, Tracking (its coverage, and the Track control for owners and managers) for every member,
// and Edit, Duplicate and Delete where the privilege and the plan's limit allow.
import { Link } from '@tanstack/react-router';
import type { SavedQuery, SavedQueryVolume } from '@contract/saved-queries';
import type { MemberResponse } from '@contract/workspaces';
import { FIGURES_PREPARING_SHORT } from '@/components/FiguresWait';
import { Sparkline } from '@/components/Sparkline';
import { formatDateTime, formatShortDay } from '@/lib/date-time';
import { authorName, relativeTime } from './saved-query-rules';

interface Refusal {
  id: string;
  reason: string;
}

export interface SavedQueryListProps {
  workspaceId: string;
  /** The workspace's, in which times are written. */
  timeZone: string;
  queries: SavedQuery[];
  members: MemberResponse[];
  /** The counts; `preparing` while the figures are being prepared (the page asks again until they are). */
  volume: { data: SavedQueryVolume | undefined; failed: boolean; preparing?: boolean };
  /** Set when the actions are refused: the sentence saying why, and the id of where the page shows it. */
  editDisabledBy: Refusal | null;
  duplicateDisabledBy: Refusal | null;
  onEdit: (query: SavedQuery) => void;
  onDuplicate: (query: SavedQuery) => void;
  onDelete: (query: SavedQuery) => void;
  /** Opens the query's tracking (its coverage; the Track control for owners and managers). */
  onTracking: (query: SavedQuery) => void;
  duplicating: string | null;
}

const number = new Intl.NumberFormat();

function Mentions({ query, volume }: { query: SavedQuery; volume: SavedQueryListProps['volume'] }) {
  if (volume.preparing && !volume.data) return <span className="muted small">{FIGURES_PREPARING_SHORT}</span>;
  if (volume.failed) return <span className="muted small">Not available</span>;
  if (!volume.data) return <span className="muted small">Counting…</span>;
  const entry = volume.data.saved_queries.find((q) => q.id === query.id);
  // Created after the counts were read: they are read again with the list.
  if (!entry) return <span className="muted small">Counting…</span>;
  if (!entry.counts || entry.total === null)
    return <span className="muted small">Query no longer valid</span>;
  // The days are the workspace's, written as they are.
  const { days, time_zone: zone } = volume.data;
  const label =
    `${number.format(entry.total)} mentions in the last 7 days and today. Per day from ${formatShortDay(days[0]!, zone)} ` +
    `to ${formatShortDay(days.at(-1)!, zone)} (today, so far): ${entry.counts.map((n) => number.format(n)).join(', ')}.`;
  return (
    <span className="mentions">
      <Sparkline values={entry.counts} label={label} partialLast />
      <span className="mentions-total" aria-hidden="true">
        {number.format(entry.total)}
      </span>
    </span>
  );
}

export function SavedQueryList(props: SavedQueryListProps) {
  const { workspaceId, timeZone, queries, members, volume, editDisabledBy, duplicateDisabledBy } = props;
  const zone = volume.data?.time_zone;
  return (
    <div className="table-wrap">
      <table className="table saved-queries">
        <caption className="visually-hidden">Saved queries of this workspace, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Query</th>
            <th scope="col">Author</th>
            <th scope="col">Last edit</th>
            <th scope="col" title={zone ? `Days in ${zone}; today so far` : undefined}>
              Mentions, 7 days
            </th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {queries.map((query) => (
            <tr key={query.id}>
              <th scope="row" className="query-name">
                <Link
                  to="/workspace/$workspaceId/insight/overview"
                  params={{ workspaceId }}
                  search={{ query: query.id }}
                  title={`Open the dashboards of “${query.name}”`}
                >
                  {query.name}
                </Link>
              </th>
              <td className="query-cell">
                <code className="query-text" title={query.query} tabIndex={0}>
                  {query.query || <span className="muted">(every post)</span>}
                </code>
                {query.lists.length ? (
                  <p className="small muted query-lists-read">
                    Reads {query.lists.length === 1 ? 'the list' : 'the lists'}{' '}
                    <Link to="/workspace/$workspaceId/settings/lists" params={{ workspaceId }}>
                      {query.lists.join(', ')}
                    </Link>
                  </p>
                ) : null}
              </td>
              <td className={query.created_by === null ? 'author muted' : 'author'}>
                {authorName(query, members)}
              </td>
              <td className="nowrap">
                <time
                  dateTime={new Date(query.updated_at * 1000).toISOString()}
                  title={formatDateTime(query.updated_at, timeZone)}
                >
                  {relativeTime(query.updated_at)}
                </time>
              </td>
              <td>
                <Mentions query={query} volume={volume} />
              </td>
              <td className="actions">
                <button
                  type="button"
                  className="button small"
                  aria-label={`Tracking of ${query.name}`}
                  onClick={() => props.onTracking(query)}
                >
                  Tracking
                </button>
                <button
                  type="button"
                  className="button small"
                  aria-label={`Edit ${query.name}`}
                  disabled={editDisabledBy !== null}
                  aria-describedby={editDisabledBy?.id}
                  title={editDisabledBy?.reason}
                  onClick={() => props.onEdit(query)}
                >
                  Edit
                </button>
                <button
                  type="button"
                  className="button small"
                  aria-label={`Duplicate ${query.name}`}
                  disabled={duplicateDisabledBy !== null || props.duplicating !== null}
                  aria-describedby={duplicateDisabledBy?.id}
                  title={duplicateDisabledBy?.reason}
                  aria-busy={props.duplicating === query.id || undefined}
                  onClick={() => props.onDuplicate(query)}
                >
                  {props.duplicating === query.id ? 'Duplicating…' : 'Duplicate'}
                </button>
                <button
                  type="button"
                  className="button small danger-text"
                  aria-label={`Delete ${query.name}`}
                  disabled={editDisabledBy !== null}
                  aria-describedby={editDisabledBy?.id}
                  title={editDisabledBy?.reason}
                  onClick={() => props.onDelete(query)}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
