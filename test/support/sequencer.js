/**
 * Unit tests first: they take seconds, and a few of them read the event loop's idleness or
 * count timer beats, which the in-process tier's workers and servers would disturb later on.
 * The rest keeps jest's own order.
 */
const Sequencer = require('@jest/test-sequencer').default;

const isUnit = (test) => /[\\/]test[\\/]unit[\\/]/.test(test.path);

class UnitFirst extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    return [...sorted.filter(isUnit), ...sorted.filter((t) => !isUnit(t))];
  }
}

module.exports = UnitFirst;
