/** Every process a test starts serves (and runs) the demo tools and the conformance fixtures. */
import path from 'node:path';

process.env.MCP_TOOLS_MODULE ??= path.resolve(__dirname, '..', '..', 'build', 'test', 'fixtures', 'index.js');
