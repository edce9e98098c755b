import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const r = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      '#default-backend': r('./src/crypto/node/index.ts'),
      'transitkit/adapters/file': r('./adapters/file/index.ts'),
      'transitkit/adapters/redis': r('./adapters/redis/index.ts'),
      'transitkit/adapters/postgres': r('./adapters/postgres/index.ts'),
      'transitkit/http/node': r('./adapters/http/node-server.ts'),
      'transitkit/stream/node': r('./adapters/stream/node.ts'),
      'transitkit/http': r('./adapters/http/index.ts'),
      'transitkit/testing': r('./adapters/testing/index.ts'),
      transitkit: r('./src/index.ts'),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
