// The scratch directories of the change feed and the rebuild (server/analytics/scratch.ts): those a killed process
// left are removed; those of a process still alive are not.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeScratch, removeOrphanScratch } from '@server/analytics/scratch';

// A directory of the test's own: other test files' services clear the shared temporary directory as they start.
const parent = mkdtempSync(join(tmpdir(), 'murmur-scratch-test-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('scratch directories', () => {
  it('removes those of ended processes, and keeps those of live ones', async () => {
    // A process that has ended: its pid is free (and, at once after, not taken again).
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const deadPid = Number(ended.stdout);
    expect(deadPid).toBeGreaterThan(0);
    const orphan = join(parent, `murmur-feed-${deadPid}-a`);
    mkdirSync(orphan);
    writeFileSync(join(orphan, 'posts-0.jsonl'), '{"id":"1"}\n');
    const rebuild = join(parent, `murmur-rebuild-${deadPid}-b`);
    mkdirSync(rebuild);
    const mine = await makeScratch('feed', parent);
    const other = join(parent, `murmur-other-${deadPid}-c`);
    mkdirSync(other);

    const removed = await removeOrphanScratch(parent);
    expect(removed.sort()).toEqual([orphan, rebuild].sort());
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(rebuild)).toBe(false);
    expect(existsSync(mine)).toBe(true); // this process is alive
    expect(mine).toContain(`murmur-feed-${process.pid}-`);
    expect(existsSync(other)).toBe(true); // not a scratch directory's name
  });
});
