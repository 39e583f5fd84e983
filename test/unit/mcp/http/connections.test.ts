/** The default cap on open connections, from the open-file limit (the cap itself: test/processes/http-edge.test.ts). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_MAX_CONNECTIONS, defaultMaxConnections, FD_RESERVE } from '../../../../src/mcp/http/connections';

function limitsFile(openFiles: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mtt-limits-')), 'limits');
  fs.writeFileSync(
    file,
    `Limit                     Soft Limit           Hard Limit           Units\nMax processes             95000                95000                processes\nMax open files            ${openFiles}                 files\n`,
  );
  return file;
}

test.each([
  ['1024 1048576', 1024 - FD_RESERVE],
  ['20000 20000', DEFAULT_MAX_CONNECTIONS],
  ['unlimited unlimited', DEFAULT_MAX_CONNECTIONS],
  ['64 64', 1],
])('open files %s: %d connections', (openFiles, expected) => {
  expect(defaultMaxConnections(limitsFile(openFiles))).toBe(expected);
});

test('no limits file (not Linux): the fixed default', () => {
  expect(defaultMaxConnections(path.join(os.tmpdir(), 'no-such-limits-file'))).toBe(DEFAULT_MAX_CONNECTIONS);
});
