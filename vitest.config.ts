import { defineConfig } from 'vitest/config';

// Two suites: `unit` runs on a fresh clone (vendored fixtures only);
// `data` reads the real benchmark files under ../shared/data.
// NO_COLOR: picocolors turns colours on when $CI is set; CLI output assertions expect plain text.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          env: { NO_COLOR: '1' },
          include: ['src/**/*.test.ts'],
          exclude: ['src/**/*.data.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'data',
          env: { NO_COLOR: '1' },
          include: ['src/**/*.data.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
