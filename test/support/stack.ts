import { startServe, startWorker } from './mcp';
import { stopAllAfter } from './processes';
import { startTestTemporal, TestTemporal } from './temporal';

export interface Stack {
  temporal: TestTemporal;
  url: string;
}

/** A test file's stack: a dev server, one worker and one `serve`, up before its tests, down after. */
export function useStack(opts: { serveArgs?: string[]; serveEnv?: NodeJS.ProcessEnv; workerEnv?: NodeJS.ProcessEnv } = {}): Stack {
  const stack = {} as Stack;
  beforeAll(async () => {
    stack.temporal = await startTestTemporal();
    await startWorker(stack.temporal.address, opts.workerEnv);
    ({ url: stack.url } = await startServe(stack.temporal.address, opts.serveArgs, opts.serveEnv));
  });
  stopAllAfter(() => stack.temporal);
  return stack;
}
