/**
 * The tests' hand-driven clock is the one `transitkit/testing` exports
 * (adapters/testing/fake-clock.ts), so the suite and the tests share one class.
 * @module
 */
export { FAKE_CLOCK_START, FakeClock } from '../../adapters/testing/fake-clock.js';
