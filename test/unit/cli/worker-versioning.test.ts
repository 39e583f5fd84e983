/** Worker Versioning settings of the `worker` command (the flags against a real Temporal: test/processes/versioning.test.ts). */
import { ConfigError } from '../../../src/mcp/config';
import { parseVersioning } from '../../../src/cli/worker-versioning';

test('MCP_SET_CURRENT_VERSION alone changes nothing; with a build id it makes the version current', () => {
  // compose sets MCP_SET_CURRENT_VERSION for whenever MCP_BUILD_ID is given: alone it changes nothing
  expect(parseVersioning({}, { MCP_SET_CURRENT_VERSION: 'true' })).toBeUndefined();
  expect(parseVersioning({ buildId: 'r1', deploymentName: 'mcp-temporal-tasks' }, { MCP_SET_CURRENT_VERSION: 'true' })).toEqual({
    deploymentName: 'mcp-temporal-tasks',
    buildId: 'r1',
    behavior: 'PINNED',
    setCurrent: true,
  });
});

test('a build id versions the worker: the default deployment, PINNED unless AUTO_UPGRADE, trimmed', () => {
  expect(parseVersioning({ buildId: '  r2 ' }, {})).toEqual({
    deploymentName: 'mcp-temporal-tasks',
    buildId: 'r2',
    behavior: 'PINNED',
    setCurrent: false,
  });
  expect(parseVersioning({ buildId: 'r2', deploymentName: ' shop ', versioningBehavior: 'AUTO_UPGRADE', setCurrent: true }, {})).toEqual({
    deploymentName: 'shop',
    buildId: 'r2',
    behavior: 'AUTO_UPGRADE',
    setCurrent: true,
  });
  expect(parseVersioning({ buildId: 'r2', deploymentName: '' }, {})?.deploymentName).toBe('mcp-temporal-tasks');
  expect(parseVersioning({ buildId: 'r2' }, { MCP_SET_CURRENT_VERSION: '0' })?.setCurrent).toBe(false);
  expect(parseVersioning({ buildId: 'r2' }, { MCP_SET_CURRENT_VERSION: 'YES' })?.setCurrent).toBe(true);
  expect(parseVersioning({ buildId: '   ' }, {})).toBeUndefined();
});

test.each<[Parameters<typeof parseVersioning>[0], RegExp]>([
  [{ setCurrent: true }, /--set-current needs --build-id \(MCP_BUILD_ID\)/],
  [
    { buildId: 'r1', deploymentName: 'has.dot' },
    /--deployment-name \(MCP_DEPLOYMENT_NAME\): "has\.dot" must be at most 255 characters without "\." or spaces/,
  ],
  [{ buildId: 'r1', deploymentName: 'two words' }, /--deployment-name/],
  [{ buildId: 'r1', deploymentName: 'd'.repeat(256) }, /--deployment-name/],
  [{ buildId: 'r 1' }, /--build-id \(MCP_BUILD_ID\): "r 1" must be at most 255 characters without spaces/],
  [{ buildId: 'b'.repeat(256) }, /--build-id/],
  [{ buildId: '__unversioned__' }, /--build-id/],
])('%j is refused clearly', (opts, message) => {
  expect(() => parseVersioning(opts, {})).toThrow(ConfigError);
  expect(() => parseVersioning(opts, {})).toThrow(message);
});
