/**
 * A recording audit device type for the broker tests: every line it writes
 * is kept per path; `failing` paths reject their writes, `unopenable` paths
 * refuse to open. Not a test file.
 */
import type { AuditDevice, AuditDeviceFactory, AuditEntry } from '../../src/index.js';

export interface Recorder {
  factory: AuditDeviceFactory;
  lines: Map<string, string[]>;
  failing: Set<string>;
  unopenable: Set<string>;
  /**
   * The entries written by the device at `path` (prefix stripped), without
   * the test entry written when it was enabled (`sys/audit/test`).
   */
  entries(path: string, prefix?: string): AuditEntry[];
  closed: string[];
}

export function recorder(): Recorder {
  const lines = new Map<string, string[]>();
  const failing = new Set<string>();
  const unopenable = new Set<string>();
  const closed: string[] = [];
  const factory: AuditDeviceFactory = {
    options: ['tag'],
    async create({ path }): Promise<AuditDevice> {
      if (unopenable.has(path)) throw new Error(`cannot open ${path}`);
      const mine = lines.get(path) ?? [];
      lines.set(path, mine);
      return {
        async write(line) {
          if (failing.has(path)) throw new Error(`device ${path} is down`);
          mine.push(line);
        },
        async flush() {},
        async close() {
          closed.push(path);
        },
      };
    },
  };
  return {
    factory,
    lines,
    failing,
    unopenable,
    closed,
    entries: (path, prefix = '') =>
      (lines.get(path) ?? [])
        .map((l) => {
          if (!l.startsWith(prefix) || !l.endsWith('\n')) throw new Error(`bad line ${l}`);
          return JSON.parse(l.slice(prefix.length)) as AuditEntry;
        })
        .filter((e) => e.request.path !== 'sys/audit/test'),
  };
}

/** A request as the HTTP layer describes it. */
export const request = (over: Record<string, unknown> = {}) => ({
  id: 'req-1',
  operation: 'update',
  mountPoint: 'transit/',
  mountType: 'transit',
  path: 'transit/encrypt/orders',
  data: {
    plaintext: 'c2VjcmV0IHBsYWludGV4dA==',
    key_version: 2,
    batch_input: [{ context: 'ctx' }],
  },
  remoteAddress: '127.0.0.1',
  remotePort: 40000,
  token: { token: 'hvs.secret-token', accessor: 'accessor-1', policies: ['root'], isRoot: true },
  time: Date.UTC(2026, 0, 2, 3, 4, 5),
  ...over,
});
