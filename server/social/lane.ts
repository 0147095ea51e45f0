// How many dashboard requests the server works on at once between the door and their answer (or their turn in the
// admission queue). A cached answer costs little, but 32 connections asking for cached answers keep 32 requests'
// callbacks (their look-ups' replies, their writes) in the event loop at every turn, and a light request sharing the
// loop (users/me) waits behind all of them at each of its own steps, and behind their look-ups for the light pool's
// connections. In the lane, at most `width` are worked on; the others wait in a list, which costs nothing, in arrival
// order. Throughput does not change (the process is busy either way); what a light request waits behind does.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';

export class Lane {
  private inside = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly width: number) {}

  /** What is inside and what waits (tests). */
  get state() {
    return { inside: this.inside, waiting: this.waiting.length };
  }

  /** A place in the lane, at once or after those who came before; the function given back leaves it (once). */
  enter(): Promise<() => void> {
    if (this.inside < this.width) return Promise.resolve(this.admit());
    return new Promise((resolve) => this.waiting.push(() => resolve(this.admit())));
  }

  private admit(): () => void {
    this.inside += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.inside -= 1;
      this.waiting.shift()?.();
    };
  }
}

const seats = new WeakMap<FastifyRequest, () => void>();

/**
 * An onRequest hook that waits for a place in `lane` for the request; the place is left when the answer is sent, the
 * client goes away, or the request leaves it earlier (leaveLane: before it waits for an admission slot).
 */
export function inLane(lane: Lane): onRequestHookHandler {
  return (request, reply, done) => {
    void lane.enter().then((leave) => {
      seats.set(request, leave);
      const response = reply.raw;
      // A client that went away while this waited: its response closed already, and 'close' will not come again.
      if (response.destroyed || response.writableFinished || request.raw.socket?.destroyed) leave();
      else response.once('close', leave);
      done();
    });
  };
}

/** Leaves the lane (if in it): a request about to wait for a slot holds no place while it waits. */
export function leaveLane(request: FastifyRequest | FastifyReply['request']) {
  seats.get(request)?.();
}
