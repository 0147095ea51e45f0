import { describe, it, expect } from 'vitest';
import { assign, fromPromise, not, setup } from 'xstate';
import { renderDiagram, renderMachineDoc, renderMermaid, table } from '@scripts/statecharts-render';

const fetchMachine = setup({
  types: {} as {
    context: { items: string[]; attempts: number };
    events: { type: 'FETCH' } | { type: 'RESET' } | { type: 'PING' } | { type: 'CANCEL' };
  },
  guards: { canFetch: () => true, hasItems: ({ context }) => context.items.length > 0 },
  actions: { storeItems: assign({ items: ['a'] }), countAttempt: () => {}, logPing: () => {} },
  actors: { fetchItems: fromPromise(async () => ['a']) },
}).createMachine({
  id: 'fetch',
  description: 'Loads items.',
  initial: 'idle',
  context: { items: [], attempts: 0 },
  states: {
    idle: {
      on: {
        FETCH: { guard: 'canFetch', target: 'loading', description: 'Only when allowed.' },
        PING: { actions: 'logPing' },
      },
    },
    loading: {
      initial: 'requesting',
      on: { RESET: { target: '.requesting', reenter: true }, CANCEL: 'idle' },
      states: {
        requesting: {
          invoke: {
            src: 'fetchItems',
            onDone: { target: 'checking', actions: 'storeItems' },
            onError: { target: '#fetch.failure', actions: 'countAttempt' },
          },
        },
        checking: {
          always: [
            { guard: 'hasItems', target: '#fetch.success' },
            { guard: not('hasItems'), target: '#fetch.empty' },
          ],
        },
      },
    },
    success: { type: 'final' },
    empty: { type: 'final' },
    failure: { on: { FETCH: 'loading' } },
  },
});

describe('renderMermaid', () => {
  const lines = renderMermaid(fetchMachine);

  it('starts a stateDiagram-v2 with the initial state arrow', () => {
    expect(lines[0]).toBe('stateDiagram-v2');
    expect(lines).toContain('  [*] --> idle');
  });

  it('labels guarded transitions with the event and the guard name', () => {
    expect(lines).toContain('  idle --> loading : FETCH [canFetch]');
    expect(lines).toContain('  failure --> loading : FETCH');
  });

  it('nests compound states with aliased ids and their own initial arrow', () => {
    const start = lines.indexOf('  state loading {');
    const end = lines.indexOf('  }', start);
    expect(start).toBeGreaterThan(0);
    expect(lines.slice(start, end)).toEqual(
      expect.arrayContaining([
        '    [*] --> loading_requesting',
        '    state "requesting" as loading_requesting',
        '    loading_requesting : invokes fetchItems',
      ]),
    );
  });

  it('shows invoke done/error events by actor name and eventless transitions as always', () => {
    expect(lines).toContain('    loading_requesting --> loading_checking : done: fetchItems');
    expect(lines).toContain('  loading_requesting --> failure : error: fetchItems');
    expect(lines).toContain('  loading_checking --> success : always [hasItems]');
    expect(lines).toContain('  loading_checking --> empty : always [not(hasItems)]');
  });

  it('marks final states', () => {
    expect(lines).toContain('  success --> [*]');
    expect(lines).toContain('  empty --> [*]');
  });

  it('lists actions-only transitions inside the state box and hides composite-internal ones', () => {
    expect(lines).toContain('  idle : PING / logPing');
    const { hidden } = renderDiagram(fetchMachine);
    expect(hidden.map((edge) => edge.event)).toEqual(['RESET']);
  });

  it('is deterministic', () => {
    expect(renderMermaid(fetchMachine)).toEqual(lines);
  });
});

describe('renderMachineDoc', () => {
  const doc = renderMachineDoc({
    sourcePath: 'src/machines/fetch.machine.ts',
    sourceLink: '../../src/machines/fetch.machine.ts',
    machines: [{ exportName: 'fetchMachine', machine: fetchMachine }],
  });

  it('has a title, the generated-file note and the Mermaid block', () => {
    expect(doc.startsWith('# Statechart: fetch\n')).toBe(true);
    expect(doc).toContain('by `npm run statecharts`. Do not edit by hand.');
    expect(doc).toContain('```mermaid\nstateDiagram-v2\n');
  });

  it('tabulates states, transitions and named implementations with descriptions', () => {
    expect(doc).toMatch(/^\| `loading\.requesting` +\| atomic +\|.*\| `fetchItems` +\|/m);
    expect(doc).toMatch(
      /^\| `idle` +\| `FETCH` +\| `canFetch` +\| `loading` +\| — +\| Only when allowed\. +\|$/m,
    );
    expect(doc).toMatch(/^\| `loading` +\| `RESET` +\| — +\| `loading\.requesting` \(re-enter\) +\|/m);
    expect(doc).toMatch(/^\| `hasItems` +\| `loading\.checking` +\|$/m);
    expect(doc).toContain('Loads items.');
  });
});

describe('table', () => {
  it('pads columns and escapes pipes like Prettier', () => {
    expect(table(['A', 'Long header'], [['x|y', '']])).toEqual([
      '| A    | Long header |',
      '| ---- | ----------- |',
      '| x\\|y | —           |',
    ]);
  });
});
