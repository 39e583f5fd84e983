import type * as Jose from 'jose' with { 'resolution-mode': 'import' };

/**
 * jose 6 is ESM-only; Node >= 20.19 (our engines) requires it from CommonJS, and TypeScript's
 * node16 mode only allows that as a typed require.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const jose: typeof Jose = require('jose');
export type { Jose };
