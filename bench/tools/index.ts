/** `--tools-module` for the benches: the demo tools, on a worker that also runs the raw baseline (plainTimer). */
export { tools } from '../../examples/demo/tools';
export * as activities from '../../examples/demo/activities';
export const workflowsPath = require.resolve('./workflows');
