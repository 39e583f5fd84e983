import { listenForStop } from '../../../src/cli/stop-signals';

let exits: number[];
let errors: string[];
let listeners: { SIGINT: NodeJS.SignalsListener[]; SIGTERM: NodeJS.SignalsListener[] };

beforeEach(() => {
  exits = [];
  errors = [];
  listeners = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  jest.spyOn(process, 'exit').mockImplementation(((code: number) => void exits.push(code)) as never);
  jest.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(String(line)));
});

afterEach(() => {
  jest.restoreAllMocks();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const l of process.listeners(signal)) if (!listeners[signal].includes(l)) process.off(signal, l as never);
  }
});

const settle = () => new Promise((r) => setImmediate(r));

test('a signal during start-up is kept: the stop runs as soon as the command hands it over, then the process exits 0', async () => {
  const onStop = listenForStop();
  process.emit('SIGINT');
  await settle();
  expect(errors).toEqual(['SIGINT: stopping']);
  expect(exits).toEqual([]); // nothing to stop yet, and no outright kill either
  const stop = jest.fn(async () => undefined);
  onStop(stop);
  await settle();
  expect(stop).toHaveBeenCalledTimes(1);
  expect(exits).toEqual([0]);
});

test('the two SIGINTs of one Ctrl-C under npm stop once; a failing stop exits 1', async () => {
  const onStop = listenForStop();
  const stop = jest.fn(async () => {
    throw new Error('worker did not drain');
  });
  onStop(stop);
  process.emit('SIGINT');
  process.emit('SIGINT');
  await settle();
  expect(stop).toHaveBeenCalledTimes(1);
  expect(errors[0]).toBe('SIGINT: stopping');
  expect(errors).toHaveLength(2); // the stop line and the stop's error
  expect(exits).toEqual([1]);
});

test('SIGTERM before any signal: the handed-over stop runs once, on the signal', async () => {
  const onStop = listenForStop();
  const stop = jest.fn(async () => undefined);
  onStop(stop);
  await settle();
  expect(stop).not.toHaveBeenCalled();
  process.emit('SIGTERM');
  await settle();
  expect(stop).toHaveBeenCalledTimes(1);
  expect(errors).toEqual(['SIGTERM: stopping']);
  expect(exits).toEqual([0]);
});
