// The linter: typescript-eslint's type-checked rules plus the house rules that encode lessons (STYLE.md). Prettier
// formats (.prettierrc.json); `npm run lint` runs both checks and `npm test` runs lint first.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const CONTENT_TYPE_SUBSTRING = {
  selector:
    'CallExpression[callee.property.name=/^(includes|indexOf)$/][arguments.0.value=/^(text|application|image|multipart)\\//]',
  message:
    'Do not match media types by substring: parse the header (mimeOf() in src/util/media-type.ts, ' +
    'acceptsMedia() in src/http/accept.ts).',
};

export default tseslint.config(
  {
    ignores: [
      'eslint.config.js',
      'dist/**',
      'dist-npm/**',
      'node_modules/**',
      '.bench-tmp/**',
      'data/**',
      'screenshots/**',
      'test/fixtures/**',
      'bin/**',
    ],
  },
  js.configs.recommended,

  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Template literals hold documents (Markdown, HTML, SQL, a page script) whose lines are content, not code.
      'max-len': ['error', { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true, ignoreTemplateLiterals: true }],
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      // Our factories return plain closures, never methods that read `this`.
      '@typescript-eslint/unbound-method': 'off',
      // Interfaces that return promises (Cache, Mailer…) have implementations with nothing to await.
      '@typescript-eslint/require-await': 'off',
      // Stripping control characters from pages is deliberate, and done with regular expressions.
      'no-control-regex': 'off',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      'no-restricted-syntax': ['error', CONTENT_TYPE_SUBSTRING],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through src/config.ts.' },
      ],
    },
  },
  { files: ['src/config.ts'], rules: { 'no-restricted-properties': 'off' } },
  // The pages' own browser script: plain JavaScript, checked without types.
  {
    files: ['src/pages/static/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: {
        document: 'readonly',
        navigator: 'readonly',
        window: 'readonly',
        getSelection: 'readonly',
        setTimeout: 'readonly',
      },
    },
  },
  // Plain JavaScript that Node runs as it is: the build script and the module log preloaded into installed packages.
  {
    files: ['scripts/**/*.mjs', 'test/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly' },
    },
  },
  {
    // The dashboard is a client of the public API: it reads the API's JSON answers as any client would, untyped.
    // Known gap: typing ApiAnswer by the contract's schemas would remove this exception.
    files: ['src/pages/dashboard/**/*.ts', 'src/pages/examples/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
  {
    // Tests and benchmarks read untyped JSON bodies all the time; `any` there is the honest type.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Fixture pages and expected outputs are long strings by nature.
      'max-len': [
        'error',
        { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true, ignoreStrings: true, ignoreTemplateLiterals: true },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
