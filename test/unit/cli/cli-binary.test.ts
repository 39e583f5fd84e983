/** Finding the Temporal CLI: TEMPORAL_CLI_PATH, then the project's .temporal/bin/temporal, then PATH. */
import path from 'node:path';
import { findTemporalCli } from '../../../src/cli/cli-binary';

const ROOT = path.resolve(__dirname, '..', '..', '..');

test('the Temporal CLI is found in the project folder, and TEMPORAL_CLI_PATH wins', () => {
  const found = findTemporalCli({ PATH: '' });
  expect(found).toEqual({ path: `${ROOT}/.temporal/bin/temporal`, source: 'project' });
  expect(findTemporalCli({ TEMPORAL_CLI_PATH: found!.path, PATH: '' })?.source).toBe('TEMPORAL_CLI_PATH');
  expect(findTemporalCli({ TEMPORAL_CLI_PATH: '/nonexistent/temporal', PATH: '' })).toBeUndefined();
});
