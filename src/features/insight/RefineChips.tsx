// The drill-down refinements of the view as chips: what each keeps ("only") or leaves out ("not"), a switch named by
// what pressing it does (leave out, keep only) and a button that removes it. Chips combine (all must hold); every
// control is a real button, so the keyboard reaches them all. A tag is named with its category ("Topic › Drinks"), never
// by its id ("a tag" while the workspace's tags load, or for one it no longer has).
import type { Refine } from '@contract/insights';
import type { WorkspaceLanguage } from '@contract/workspaces';
import { languageLabel } from '@/lib/languages';
import { platformName } from '@/lib/platforms';
import { DAY_NAMES, formatBucket, formatWhole } from './insight-format';
import { useInsightView } from './insight-view';
import type { Platform } from './insight-search';
import { useTagNames } from './tag-names';

const FIELD_LABELS: Record<Refine['field'], string> = {
  date: 'Date',
  platform: 'Platform',
  hashtag: 'Hashtag',
  mention: 'Mention',
  term: 'Word',
  author: 'Author',
  sentiment: 'Sentiment',
  language: 'Language',
  media: 'Media',
  kind: 'Kind',
  domain: 'Link domain',
  followers: 'Followers',
  hour_of_week: 'Posted',
  tag: 'Tag',
};

/** A refinement's values in words ("#coffee or #tea", "3 Nov", "10K to 100K followers", "Topic › Drinks"). */
function describeRefine(refine: Refine, timeZone: string, tagNames: ReadonlyMap<string, string>): string {
  const words = refine.values.map((value): string => {
    if (typeof value === 'object' && 'day' in value) {
      return `${DAY_NAMES[value.day - 1] ?? value.day}s ${String(value.hour).padStart(2, '0')}:00–${String(value.hour).padStart(2, '0')}:59`;
    }
    if (typeof value === 'object') {
      const { min, max } = value;
      if (min !== undefined && max !== undefined) return `${formatWhole(min)} to ${formatWhole(max - 1)}`;
      return min !== undefined ? `${formatWhole(min)} or more` : `fewer than ${formatWhole(max ?? 0)}`;
    }
    switch (refine.field) {
      case 'date':
        return formatBucket(String(value), refine.bucket, timeZone);
      case 'platform':
        return platformName(value as Platform);
      case 'language':
        return languageLabel(value as WorkspaceLanguage);
      case 'hashtag':
        return `#${String(value).replace(/^#/, '')}`;
      case 'mention':
        return `@${String(value).replace(/^@/, '')}`;
      case 'author':
        return typeof value === 'number' ? `profile ${value}` : `@${value.replace(/^@/, '')}`;
      case 'tag':
        return tagNames.get(String(value)) ?? 'a tag';
      case 'sentiment':
        return value === 'not_rated' ? 'not rated' : String(value);
      default:
        return String(value);
    }
  });
  return words.join(' or ');
}

export function RefineChips() {
  const { scope, setScope, timeZone, workspaceId } = useInsightView();
  const tagNames = useTagNames(
    workspaceId,
    scope.refine.some((refine) => refine.field === 'tag'),
  );
  if (!scope.refine.length) return null;
  const replace = (index: number, next: Refine | null) =>
    setScope({
      refine: scope.refine.flatMap((refine, i) => (i === index ? (next ? [next] : []) : [refine])),
    });
  return (
    <div className="refine-chips" role="group" aria-label="Drill-down refinements">
      {scope.refine.map((refine, index) => {
        const field = FIELD_LABELS[refine.field];
        const values = describeRefine(refine, timeZone, tagNames);
        // The chip says what the view does with these posts; its switch says what pressing it will do.
        const label = `${field}: ${refine.exclude ? 'not' : 'only'} ${values}`;
        const action = refine.exclude ? 'Keep only' : 'Leave out';
        return (
          <span key={index} className={refine.exclude ? 'refine-chip excluded' : 'refine-chip'}>
            <span className="refine-chip-label">{label}</span>
            <button
              type="button"
              className="refine-chip-switch"
              aria-label={`${action} ${field} ${values}`}
              onClick={() => replace(index, { ...refine, exclude: !refine.exclude || undefined })}
            >
              {action}
            </button>
            <button
              type="button"
              className="refine-chip-remove"
              aria-label={`Remove ${label}`}
              onClick={() => replace(index, null)}
            >
              ×
            </button>
          </span>
        );
      })}
      {scope.refine.length > 1 ? (
        <button type="button" className="link-button small" onClick={() => setScope({ refine: [] })}>
          Clear all
        </button>
      ) : null}
    </div>
  );
}
