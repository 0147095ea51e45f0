// Aho–Corasick over UTF-16 code units: every pattern found in a text in one pass, whatever their number. The matcher
// (index.ts) runs it once per post over the lower-cased text for the substring terms of all tracked queries (CJK,
// Thai, emoji: server/query/terms.ts, matchMode). Written here rather than taken from a package: no installed one
// does it, and the automaton is some forty lines.

export class AhoCorasick {
  /** Each state's transitions by code unit. State 0 is the root. */
  private readonly next: Array<Map<number, number>> = [new Map()];
  /** Each state's longest proper suffix that is also a state. */
  private readonly fail: number[] = [0];
  /** The patterns that end at each state (its own and those of its suffixes). */
  private readonly out: number[][] = [[]];

  /** `patterns[i]` is reported as `i`; an empty pattern is never reported. */
  constructor(patterns: readonly string[]) {
    patterns.forEach((pattern, id) => {
      if (pattern === '') return;
      let state = 0;
      for (let i = 0; i < pattern.length; i++) {
        const unit = pattern.charCodeAt(i);
        let to = this.next[state]!.get(unit);
        if (to === undefined) {
          to = this.next.length;
          this.next.push(new Map());
          this.fail.push(0);
          this.out.push([]);
          this.next[state]!.set(unit, to);
        }
        state = to;
      }
      this.out[state]!.push(id);
    });
    // Breadth first, so that a state's suffix is complete before the state's.
    const queue = [...this.next[0]!.values()];
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (const [unit, to] of this.next[state]!) {
        this.fail[to] = state === 0 ? 0 : this.step(this.fail[state]!, unit);
        this.out[to]!.push(...this.out[this.fail[to]!]!);
        queue.push(to);
      }
    }
  }

  /** The state after `unit` from `state`. */
  private step(state: number, unit: number): number {
    for (;;) {
      const to = this.next[state]!.get(unit);
      if (to !== undefined) return to;
      if (state === 0) return 0;
      state = this.fail[state]!;
    }
  }

  /** Calls `found` with each pattern's number at each of its occurrences in `text`. */
  scan(text: string, found: (id: number) => void): void {
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      state = this.step(state, text.charCodeAt(i));
      const ids = this.out[state]!;
      for (let k = 0; k < ids.length; k++) found(ids[k]!);
    }
  }
}
