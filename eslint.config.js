import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Unsafe patterns (super-linear backtracking and friends) fail the lint, and so `npm test`.
  {
    files: ['services/**', 'gateway/**', 'packages/**', 'web/src/**'],
    ignores: ['**/test/**', '**/*.test.ts', '**/*.test.tsx'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
      'regexp/no-dupe-disjunctions': ['error', { report: 'all' }],
      'regexp/no-misleading-capturing-group': 'error',
    },
  },
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration in config.ts only.' },
      ],
    },
  },
  {
    files: [
      '**/config.ts',
      'scripts/**',
      'packages/infra/**',
      'packages/testkit/**',
      'bench/**',
      'tests/**',
      '**/*.test.ts',
      '**/*.test.tsx',
      '**/vitest.config.ts',
      '**/*.config.ts',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
);
