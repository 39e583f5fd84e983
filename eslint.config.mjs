// The linter (`npm run lint`, with Prettier's check): typescript-eslint's recommended rules, without
// type information: the type-aware set took over a minute on two cores, and tsc already checks types.
import { includeIgnoreFile } from '@eslint/compat';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import path from 'node:path';

export default defineConfig(
  // what git ignores (installs, build output, run artifacts) is not source
  includeIgnoreFile(path.join(import.meta.dirname, '.gitignore')),
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // `const { omitted, ...rest } = x` and `_`-named placeholders are how the code drops a field or a value
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // a timer declared before the closure that clears it, and assigned once later, stays `let`
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: {
      // plain node files: CommonJS is their module system
      '@typescript-eslint/no-require-imports': 'off',
      // `const crypto = require('node:crypto')` names the global's own module, on purpose
      'no-redeclare': ['error', { builtinGlobals: false }],
    },
  },
  {
    // the task card and the test's host page run in a browser
    files: ['src/card/**', 'test/clients/card-host/**'],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    // tests, benches and scripts read untyped wire JSON and check its shape; src and examples keep the rule
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
