import react from '@vitejs/plugin-react';
import { defineProject } from 'vitest/config';

export default defineProject({
  plugins: [react()],
  test: {
    name: 'web',
    include: ['test/**/*.test.{ts,tsx}'],
    environment: 'jsdom',
    setupFiles: ['./test/setup.ts'],
    // jsdom and antd on a machine busy with other test runs: 5 s (vitest's default) was not always enough.
    testTimeout: 30_000,
  },
});
