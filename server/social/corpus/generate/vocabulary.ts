// What a language's vocabulary holds: sentences per topic and mood, the small phrases around them, names and bios.
import type { Mood, TopicId } from './topics';

type ByMood = Record<Mood, string[]>;

export interface Vocabulary {
  topics: Record<TopicId, ByMood>;
  /** Openers without sentiment of their own ("Honestly,"). */
  openers: string[];
  /** A short follow-up sentence carrying the mood ("Love it."). */
  reactions: ByMood;
  /** Reply bodies, after the @handle. */
  replies: ByMood;
  /** Comments above a quoted post. */
  quotes: string[];
  /** [as written, ASCII for handles]. */
  firstNames: [string, string][];
  lastNames: [string, string][];
  /** Whether the display name is family name first without a space (김지우, 佐藤ゆき). */
  familyFirst: boolean;
  /** Words that make up handles (ASCII). */
  handleWords: string[];
  bios: string[];
  /** Sentences are joined with this (Japanese: none). */
  joiner: string;
  /** [ISO 3166-1 alpha-2, weight, UTC offset in hours]. */
  countries: [string, number, number][];
}
