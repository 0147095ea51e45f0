// The dashboards' lane (server/social/lane.ts): at most `width` inside, the others let in in arrival order as places
// are left; leaving twice gives back one place.
import { EventEmitter } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { inLane, Lane } from '@server/social/lane';

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

  it('gives back the place of a request whose client went away while it waited, and of one answered', async () => {
    const lane = new Lane(1);
    const hook = inLane(lane);
    const requestOf = () => {
      const response = Object.assign(new EventEmitter(), { destroyed: false, writableFinished: false });
      const request = { raw: { socket: { destroyed: false } } } as unknown as FastifyRequest;
      return { request, response, reply: { raw: response } as unknown as FastifyReply };
    };
    const holder = await lane.enter();
    const gone = requestOf();
    let admitted = false;
    hook.call(null as never, gone.request, gone.reply, () => (admitted = true));
    expect(lane.state).toEqual({ inside: 1, waiting: 1 });
    // Its connection closes while it waits: the 'close' it would have listened for has passed.
    gone.response.destroyed = true;
    gone.response.emit('close');
    holder();
    await new Promise((resolve) => setImmediate(resolve));
    expect(admitted).toBe(true);
    expect(lane.state).toEqual({ inside: 0, waiting: 0 });

    const answered = requestOf();
    hook.call(null as never, answered.request, answered.reply, () => {});
    await new Promise((resolve) => setImmediate(resolve));
    expect(lane.state.inside).toBe(1);
    answered.response.emit('close');
    expect(lane.state.inside).toBe(0);
  });
});
