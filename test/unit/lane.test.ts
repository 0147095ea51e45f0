// The dashboards' lane (server/social/lane.ts): at most `width` inside, the others let in in arrival order as places
// are left; leaving twice gives back one place.
import { describe, expect, it } from 'vitest';
import { Lane } from '../../server/social/lane';

describe('the lane', () => {
  it('lets in at most its width, then the waiting in arrival order', async () => {
    const lane = new Lane(2);
    const first = await lane.enter();
    const second = await lane.enter();
    const order: string[] = [];
    const third = lane.enter().then((leave) => (order.push('third'), leave));
    const fourth = lane.enter().then((leave) => (order.push('fourth'), leave));
    await Promise.resolve();
    expect(lane.state).toEqual({ inside: 2, waiting: 2 });
    expect(order).toEqual([]);
    first();
    first();
    (await third)();
    expect(order).toEqual(['third']);
    expect(lane.state).toEqual({ inside: 2, waiting: 0 });
    second();
    (await fourth)();
    expect(order).toEqual(['third', 'fourth']);
    expect(lane.state).toEqual({ inside: 0, waiting: 0 });
  });
});
