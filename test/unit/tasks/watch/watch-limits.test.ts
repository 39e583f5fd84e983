/** Limits on held watches (subscriptions, long polls): per caller, per server. */
import { WatchLimits } from '../../../../src/tasks/watch/watch-limits';

describe('watch limits', () => {
  test('per caller, per server, and places given back', () => {
    const limits = new WatchLimits({ maxSubscribedTasks: 3, maxSubscribedTasksPerCaller: 2 });
    const a = limits.reserve('alice', 2);
    expect(() => limits.reserve('alice')).toThrow(expect.objectContaining({ code: -32603, data: { scope: 'caller', limit: 2 } }));
    const b = limits.reserve(undefined);
    expect(() => limits.reserve('bob')).toThrow(expect.objectContaining({ data: { scope: 'server', limit: 3 } }));
    a(1);
    expect(limits.held).toBe(2);
    a();
    a(); // idempotent
    b();
    expect(limits.held).toBe(0);
  });
  test('holding gives the place back when the held call throws', async () => {
    const limits = new WatchLimits({ maxSubscribedTasks: 1, maxSubscribedTasksPerCaller: 1 });
    await expect(
      limits.holding('x', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(limits.held).toBe(0);
  });
});
