import { availableParallelism } from 'node:os';
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
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core machine.
    // Most of this suite's time is spent waiting on child processes and sockets (servers
    // starting, lock TTLs running out, redis-server, PostgreSQL, openssl, python), which a
    // second worker overlaps: 663 → 389 s on the 2-core CI machine, every test passing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
