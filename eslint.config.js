// Lint (npm run lint; scripts/test.sh runs it before the tests). Formatting is Prettier's
// (npm run format:check), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

// Imports run one way (README, "Layout"):
//   contract <- db <- domain (search, listings, orders) <- api <- main
// lib, config and es are leaves anyone may use; src/services.ts wires the domain for the API
// process; processes (indexer/, dispatcher/) sit beside src/ and never import src/api; tools/
// (the sample generator) is used by scripts, benches and tests, never by the service; the
// storefront (storefront/, browser code the API bundles and serves) imports only src/contract and the
// typed client (clients/typescript/src, a standalone package that imports nothing of the repository).
const DOMAIN = ['./src/search', './src/listings', './src/orders'];
const ABOVE_DB = [...DOMAIN, './src/api', './src/services.ts', './src/main.ts'];
const PROCESSES = ['./indexer', './dispatcher'];

const zones = [
  {
    target: './src/contract',
    from: './src',
    except: ['./contract'],
    message: 'src/contract is the bottom layer: zod schemas, types and policy constants only.',
  },
  { target: './src/db', from: [...ABOVE_DB, ...PROCESSES], message: 'src/db must not import the domain, the API or a process.' },
  {
    target: DOMAIN,
    from: ['./src/api', './src/services.ts', './src/main.ts', ...PROCESSES],
    message: 'The domain must not import the API, the service wiring or a process.',
  },
  { target: ['./src/lib', './src/config', './src/es'], from: [...ABOVE_DB, ...PROCESSES], message: 'lib/config/es are leaves.' },
  {
    target: ['./src/fixtures', './tools'],
    from: ['./src/api', './src/services.ts', ...PROCESSES],
    message: 'Loaders and tools must not import the API or a process.',
  },
  {
    target: ['./src', ...PROCESSES],
    from: './tools',
    message: 'tools/ (the sample generator) serves scripts, benches and tests; the service and its processes never import it.',
  },
  { target: PROCESSES, from: ['./src/api', './src/services.ts', './src/main.ts'], message: 'Processes never import src/api.' },
  { target: './src/api', from: PROCESSES, message: 'src/api must not import a process.' },
  // The storefront is a browser client of the buyer API: it shares the wire types and the typed client, nothing else.
  { target: './storefront', from: './src', except: ['./contract'], message: 'storefront/ may import only src/contract (wire types) and the client.' },
  {
    target: './storefront',
    from: './clients/typescript',
    except: ['./src'],
    message: "storefront/ uses the client's package source (clients/typescript/src), not its tooling.",
  },
  // The client is a package of its own (published apart): its source imports nothing of the repository.
  {
    target: './clients/typescript/src',
    from: ['./src', './storefront', './scripts', './tools', './test', './bench', './examples', ...PROCESSES],
    message: 'clients/typescript/src is a standalone package: it imports only itself and its dependencies.',
  },
  { target: ['./src', ...PROCESSES], from: './clients', message: 'The service does not depend on its client.' },
  { target: './storefront', from: PROCESSES, message: 'storefront/ is a browser client, not a process.' },
  { target: ['./src', ...PROCESSES], from: './storefront', message: 'The service never imports the storefront (src/api serves its files).' },
];

export default tseslint.config(
  { ignores: ['node_modules/', '.stack/', 'dist/', 'clients/typescript/dist/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      // The dependency files are TypeScript too (no-cycle parses them).
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver': undefined,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      // A variable a closure reads before its one assignment (a timer its own callback clears) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      'import-x/no-restricted-paths': ['error', { zones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests read untyped JSON response bodies.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
