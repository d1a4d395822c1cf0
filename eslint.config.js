// ESLint (flat config): typescript-eslint's type-aware rules for what the compiler does not catch —
// above all promises nobody awaits or handles. Formatting is prettier's job, not ESLint's.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: ["**/node_modules/", "packages/client/src/schema.ts", "**/*.js", "**/*.mjs", "**/*.cjs"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      // Off on purpose: JSON from tests, NATS and HTTP bodies is `any` by nature and parsed with zod
      // where it matters; these would flag hundreds of harmless reads.
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      // Async functions without await implement async interfaces (handlers, hooks); not a bug.
      "@typescript-eslint/require-await": "off",
      // Methods passed as callbacks are bound or arrow-defined here; the rule cannot see that.
      "@typescript-eslint/unbound-method": "off",
      // Style, not correctness (kept off so the lint step does not rewrite half the tree at once).
      "@typescript-eslint/no-unnecessary-type-assertion": "off",
      // Fields of parsed JSON are `unknown`; String() on them is meant.
      "@typescript-eslint/no-base-to-string": "off",
      // Rethrowing what was caught, or rejecting with an abort signal's reason, passes on a value typed
      // `unknown`/`any` that is an Error in practice; that is right, not a bug.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingAny: true, allowThrowingUnknown: true }],
      "@typescript-eslint/only-throw-error": ["error", { allowThrowingAny: true, allowThrowingUnknown: true }],
      // `{}` is the idiom for "no extra types" in postgres.js and for an empty builder state.
      "@typescript-eslint/no-empty-object-type": ["error", { allowObjectTypes: "always" }],
    },
  },
  {
    // Services and the packages they run on decide with the injected clock (`rt.clock`, a `Clock` or
    // `now` parameter; docs/DEVELOPING.md "Time"), so tests can move it; elapsed durations are measured
    // with performance.now(), which no wall-clock change moves. The simulators stand in for outside
    // platforms, whose time is their own; kit's systemClock is the one place that reads the wall.
    // The packages' `testing` entry points build test data, stamped with the time the test runs.
    files: ["services/*/src/**/*.ts", "packages/*/src/**/*.ts"],
    ignores: ["packages/simulators/**", "packages/kit/src/clock.ts", "packages/*/src/testing.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: "Take the time from the injected clock (rt.clock / a `now` parameter), not new Date().",
        },
        {
          selector: "MemberExpression[object.name='Date'][property.name='now']",
          message: "Take the time from the injected clock; measure elapsed durations with performance.now().",
        },
      ],
    },
  },
);
