// Shared by the corpus scripts: connecting the way the server does, and progress on the terminal.
import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { loadServerConfig } from '@server/config';
import { openConfiguredDatabase, type Database } from '@server/db/database';

const root = resolve(import.meta.dirname, '..', '..', '..');

/**
 * DATABASE_URL, or the embedded PostgreSQL in DATA_DIR (started here, stopped by close()), opened as `npm start` opens
 * it: a PostgreSQL left running by a crashed tool or server is recovered; one a live process (the server, another
 * tool) uses is refused, naming that process.
 */
export function openCorpusDatabase(): Promise<Database> {
  return openConfiguredDatabase(loadServerConfig(), root);
}

export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

/**
 * A progress bar on a terminal; elsewhere (CI, a pipe, a log file) a plain line every few seconds. `unit` names what
 * is counted ("posts", "bytes").
 */
export function createProgress(label: string, total: number, unit: string): Progress {
  const started = performance.now();
  if (process.stdout.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {rate}/s | ETA {eta_formatted}`,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { rate: 0 });
    return {
      update(done, newTotal) {
        if (newTotal !== undefined) bar.setTotal(newTotal);
        if (done === 0) return; // no rate yet (the bar would show an ETA of NaN)
        const seconds = (performance.now() - started) / 1000;
        bar.update(done, { rate: seconds > 0 ? Math.round(done / seconds).toLocaleString('en-US') : 0 });
      },
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  let current = 0;
  let printed = -1;
  let currentTotal = total;
  const line = () => {
    if (printed === current) return;
    printed = current;
    const seconds = (performance.now() - started) / 1000;
    const pct = currentTotal > 0 ? ((100 * current) / currentTotal).toFixed(0) : '100';
    const rate = seconds > 0 ? Math.round(current / seconds) : 0;
    console.log(`${label}: ${current}/${currentTotal} ${unit} (${pct}%), ${rate}/s`);
  };
  return {
    update(done, newTotal) {
      current = done;
      if (newTotal !== undefined) currentTotal = newTotal;
      const now = performance.now();
      if (now - last >= 5_000) {
        last = now;
        line();
      }
    },
    stop: line,
  };
}

export function formatDuration(ms: number): string {
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`;
}
