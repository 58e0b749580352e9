import { defineConfig } from 'vitest/config';

// Two suites: `unit` runs on a fresh clone (vendored fixtures only);
// `data` reads the real benchmark files under ../shared/data.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          exclude: ['src/**/*.data.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'data',
          include: ['src/**/*.data.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
