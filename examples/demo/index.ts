/**
 * What the CLI loads with `--tools-module` (`npm start` does): the tools for `serve`, and for
 * `worker` the module of their workflows and the activities.
 */
export { tools } from './tools';
export * as activities from './activities';
export const workflowsPath = require.resolve('./workflows');
