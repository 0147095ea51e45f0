// The generator draws posts in an order of its own (an organic post's moment anywhere in the window, a reply after
// the post it answers), but a collector that reads platforms as they publish stores them in the order they were
// posted, and so do the dashboards' readers expect the table: the posts of a range (and a topic's burst) then sit on
// neighbouring pages. So the loader spills each post's COPY line to a temporary file per UTC day, then reads the
// days back in order, each sorted by time (generation order among equal times). Memory stays that of one day.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DAY_MS = 86_400_000;
/** Characters buffered per day before they are appended to its file. */
const FLUSH_AT = 256 * 1024;

export class TimeOrderSpill {
  private readonly dir = mkdtempSync(join(tmpdir(), 'murmur-corpus-'));
  private readonly pending = new Map<number, string>();
  private readonly days = new Set<number>();
  private count = 0;

  /** Adds a COPY line (ending in a newline, as copyLine makes it) of a post posted at `time` (ms). */
  add(time: number, line: string): void {
    const day = Math.floor(time / DAY_MS);
    const buffered = (this.pending.get(day) ?? '') + `${time}\t${line}`;
    this.days.add(day);
    this.count += 1;
    if (buffered.length < FLUSH_AT) this.pending.set(day, buffered);
    else {
      appendFileSync(this.file(day), buffered);
      this.pending.delete(day);
    }
  }

  get size(): number {
    return this.count;
  }

  /** The lines in time order (call once, after the last add). */
  *ordered(): Generator<string> {
    for (const [day, buffered] of this.pending) appendFileSync(this.file(day), buffered);
    this.pending.clear();
    for (const day of [...this.days].sort((a, b) => a - b)) {
      const records = readFileSync(this.file(day), 'utf8').split('\n');
      records.pop(); // after the last newline
      const rows = records.map((record) => {
        const tab = record.indexOf('\t');
        return { time: Number(record.slice(0, tab)), line: `${record.slice(tab + 1)}\n` };
      });
      rows.sort((a, b) => a.time - b.time); // stable: generation order among equal times
      for (const row of rows) yield row.line;
      rmSync(this.file(day));
    }
  }

  /** Removes the temporary files (also after a failure). */
  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private file(day: number): string {
    return join(this.dir, `${day}.copy`);
  }
}
