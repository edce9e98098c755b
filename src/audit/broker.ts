/**
 * `AuditBroker`: the audit devices of one store (Vault's audit broker) —
 * `sys/audit` (list, enable, disable), `sys/audit-hash`, and the fan-out of
 * every request and response entry to every enabled device and to the
 * in-process sink.
 *
 * - **Stored in the barrier**: the table (devices, options, salts) is one
 *   document under `sys/audit/` (table.ts); with a storage that can `watch`,
 *   a device enabled or disabled on one instance is opened or closed on every
 *   instance at once, so a device enabled anywhere logs everywhere.
 * - **Fail closed**: with at least one device (or a sink), a request whose
 *   entry no device recorded is refused with `internal` before anything runs
 *   (the HTTP adapter logs the request entry before the call), and a response
 *   entry that none recorded turns the reply into the same 500, as Vault. A
 *   device that fails to open on an instance stays in the table there and
 *   counts as failed for every entry until it opens.
 * - **One check when idle**: {@link AuditBroker.active} is a field read; no
 *   entry is built when nothing listens.
 *
 * Device types come from `devices` (name → {@link AuditDeviceFactory}); the
 * Node devices `file` and `socket` are in `transitkit/http/node`
 * (`nodeAuditDevices`) and the CLI server registers them.
 *
 * The endpoints' reads and writes of the stored table are in ./sys-audit.ts,
 * the devices open on this instance (kept in line with it) in ./live-set.ts;
 * the entries' fan-out is here.
 *
 * Runtime-neutral.
 * @module
 */
import { type Clock, systemClock } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { internal, invalidRequest, notFound } from '../errors.js';
import { asRequest } from '../request.js';
import { hasWatch, requireStorageAdapter, type StorageAdapter } from '../storage/adapter.js';
import { LiveWatch } from '../storage/live-watch.js';
import { resolveBackend } from '../transit/options.js';
import { optionKeys, refuseUnknownOptions } from '../util/options.js';
import {
  type AuditRequestInput,
  type AuditResponseInput,
  buildEntry,
  type DeviceHashing,
  type FormatOptions,
  formatOptions,
} from './format.js';
import { type Hasher, saltHasher, tokenHasher } from './hash.js';
import { type LiveDevice, writeEntry } from './live.js';
import { LiveSet } from './live-set.js';
import { addDevice, deviceHash, listDevices, removeDevice } from './sys-audit.js';
import { AUDIT_PREFIX, newSalt, readTable, saltBytes, updateTable } from './table.js';
import type {
  AuditDeviceFactory,
  AuditDeviceInfo,
  AuditEnableRequest,
  AuditFailureInfo,
  AuditSink,
} from './types.js';

/**
 * Options of {@link AuditBroker}.
 * @public
 */
export interface AuditBrokerOptions {
  /** Where the table lives: the node's barrier, or any {@link StorageAdapter}. */
  storage: StorageAdapter;
  /** HMAC and salt randomness. Default: the platform default backend. */
  crypto?: 'noble' | 'default' | CryptoBackend;
  /** Entry times. Default: the wall clock. */
  clock?: Clock;
  /** Device types by name (`file`, `socket`: `nodeAuditDevices()` of `transitkit/http/node`). */
  devices?: Readonly<Record<string, AuditDeviceFactory>>;
  /** The in-process hook: every entry as an object (a device in its own right for fail-closed). */
  sink?: AuditSink;
  /** Called for every entry a device (or the sink) failed to record: an audit-failures counter. */
  onFailure?: (info: AuditFailureInfo) => void;
  /** Where device errors go (message and error; never an entry). Default `console`. */
  logger?: { error(message: string, error?: unknown): void };
  /**
   * Allow the `prefix` option (Vault's `allow_audit_log_prefixing`). Default
   * false: `PUT sys/audit/:path` refuses it, and a stored device that has one
   * (enabled while it was allowed) writes its entries without it. A prefix
   * with a newline lets whoever enables a `file` device write lines of their
   * choosing into any file the server can write (Vault's CVE-2025-6000).
   */
  allowLogPrefixing?: boolean;
}

/** How often an entry tries again to open a device that failed to open. */
const REOPEN_EVERY_MS = 5_000;

/** Every option of {@link AuditBrokerOptions}. @internal */
export const AUDIT_BROKER_OPTIONS = /* @__PURE__ */ optionKeys<AuditBrokerOptions>({
  storage: true,
  crypto: true,
  clock: true,
  devices: true,
  sink: true,
  onFailure: true,
  logger: true,
  allowLogPrefixing: true,
});

/**
 * The audit devices of one store and the fan-out of entries to them.
 *
 * @example
 * ```ts
 * const audit = await AuditBroker.open({
 *   storage: new MemoryStorage(),
 *   sink: (entry) => console.log(entry.type, entry.request.path),
 * });
 * ```
 * @public
 */
export class AuditBroker {
  readonly #storage: StorageAdapter;
  readonly #backend: CryptoBackend;
  readonly #clock: Clock;
  readonly #factories: Readonly<Record<string, AuditDeviceFactory>>;
  readonly #sink: AuditSink | undefined;
  readonly #onFailure: ((info: AuditFailureInfo) => void) | undefined;
  readonly #logger: { error(message: string, error?: unknown): void };
  readonly #allowPrefix: boolean;
  /** The devices open here, kept in line with the table (./live-set.ts). */
  readonly #devices: LiveSet;
  /** The devices, as an array for the hot path. */
  #targets: LiveDevice[] = [];
  #sinkHash: Hasher | undefined;
  #sinkHashing: DeviceHashing | undefined;
  #sinkFormat: FormatOptions = formatOptions({});
  #active = false;
  #closed = false;
  /** Whether entries were due when it closed: later entries then fail (fail closed). */
  #closedActive = false;
  /** Some device failed to open here: each entry first tries it again (throttled). */
  #someUnopened = false;
  #lastReopenMs = Number.NEGATIVE_INFINITY;
  /** The table's change feed (storage with `watch`); while it is not live, each entry reads the table. */
  #watch: LiveWatch | undefined;
  /** Change notifications heard, and how many of them a table read has caught up with. */
  #heard = 0;
  #caughtUp = 0;

  private constructor(o: AuditBrokerOptions) {
    const opts = asRequest(o, 'options') as unknown as AuditBrokerOptions;
    refuseUnknownOptions(opts, AUDIT_BROKER_OPTIONS, 'AuditBroker');
    requireStorageAdapter(opts.storage);
    if (opts.sink !== undefined && typeof opts.sink !== 'function') {
      throw invalidRequest("'sink' must be a function");
    }
    this.#storage = opts.storage;
    this.#backend = resolveBackend(opts.crypto);
    this.#clock = opts.clock ?? systemClock;
    this.#factories = opts.devices ?? {};
    this.#sink = opts.sink;
    this.#onFailure = opts.onFailure;
    this.#logger = opts.logger ?? console;
    if (opts.allowLogPrefixing !== undefined && typeof opts.allowLogPrefixing !== 'boolean') {
      throw invalidRequest("'allowLogPrefixing' must be a boolean");
    }
    this.#allowPrefix = opts.allowLogPrefixing === true;
    this.#devices = new LiveSet({
      allowPrefix: this.#allowPrefix,
      storage: this.#storage,
      backend: this.#backend,
      factories: this.#factories,
      logger: this.#logger,
      closed: () => this.#closed,
      changed: (targets) => this.#setTargets(targets),
    });
  }

  /**
   * Load the table, open its devices, and follow changes made by other
   * instances (when the storage can `watch`).
   * @throws TransitError from the storage (e.g. `sealed`).
   */
  static async open(options: AuditBrokerOptions): Promise<AuditBroker> {
    const b = new AuditBroker(options);
    await b.#start();
    return b;
  }

  /** True when at least one device is enabled or a sink is set: entries are built and written. */
  get active(): boolean {
    return this.#active || this.#behind();
  }

  /** The clock entries are stamped with. */
  get clock(): Clock {
    return this.#clock;
  }

  /** `GET sys/audit`: the enabled devices by path (read from storage). */
  async list(): Promise<Record<string, AuditDeviceInfo>> {
    return listDevices(this.#storage);
  }

  /**
   * `PUT sys/audit/:path`: enable a device. Its output is opened here first
   * (a path that cannot be opened is refused), then the table is written.
   * @throws TransitError `invalid_request` for an unknown type or option, a
   * bad option value, a path in use, or an output that cannot be opened.
   */
  async enable(path: string, request: AuditEnableRequest): Promise<void> {
    const added = await addDevice(
      {
        storage: this.#storage,
        backend: this.#backend,
        factories: this.#factories,
        allowPrefix: this.#allowPrefix,
        clock: this.#clock,
      },
      path,
      request,
    );
    await this.#devices.add(added.path, added.stored, added.device);
  }

  /**
   * `DELETE sys/audit/:path`: disable a device (its output is flushed and
   * closed; what it wrote stays). Disabling a path with no device does nothing.
   */
  async disable(path: string): Promise<void> {
    await this.#devices.remove(await removeDevice(this.#storage, path));
  }

  /**
   * `PUT sys/audit-hash/:path`: `input` hashed with that device's salt, as it
   * appears in its log.
   * @throws TransitError `invalid_request` when no device is at `path` or `input` is not a string.
   */
  async hash(path: string, input: string): Promise<string> {
    return deviceHash(this.#storage, this.#backend, path, input);
  }

  /**
   * `input` hashed with the sink's salt, as the sink receives it.
   * @throws TransitError `not_found` without a sink.
   */
  hashForSink(input: string): string {
    if (!this.#sinkHash) throw notFound('no audit sink is set');
    return this.#sinkHash(input);
  }

  /**
   * Record the request entry on every device, before the request runs.
   * @throws TransitError `internal` when devices are enabled and none recorded it.
   */
  logRequest(input: AuditRequestInput): Promise<void> {
    return this.#log(input, undefined);
  }

  /**
   * Record the response entry (or the error) on every device.
   * @throws TransitError `internal` when devices are enabled and none recorded it.
   */
  logResponse(input: AuditRequestInput, response: AuditResponseInput): Promise<void> {
    return this.#log(input, response);
  }

  /** Wait until every accepted entry is written. */
  async flush(): Promise<void> {
    await Promise.all(this.#targets.map((d) => d.device?.flush().catch(() => undefined)));
  }

  /**
   * Reopen every device's output (file devices after log rotation; SIGHUP),
   * and open again any device that failed to open here.
   */
  async reopen(): Promise<void> {
    await this.#openUnopened();
    await Promise.all(
      this.#targets.map((d) =>
        d.device?.reopen?.().catch((e: unknown) => {
          this.#logger.error(`transitkit/audit: reopening ${d.path} failed`, e);
        }),
      ),
    );
  }

  /**
   * Open again the devices that failed to open on this instance (a log
   * directory missing at start, a socket listener down). Until one opens,
   * every entry fails on it; this runs on SIGHUP ({@link reopen}) and before
   * an entry at most every {@link REOPEN_EVERY_MS}, as Vault's file device
   * opens its file on the next write.
   */
  #openUnopened(): Promise<void> {
    this.#lastReopenMs = this.#clock.now();
    return this.#devices.openUnopened();
  }

  /** Stop following the table, flush and close every device. Later entries are refused. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#watch?.close();
    this.#closedActive = this.#active;
    await this.#devices.closeAll();
  }

  async #start(): Promise<void> {
    if (hasWatch(this.#storage)) {
      this.#watch = new LiveWatch(this.#storage, AUDIT_PREFIX, () => {
        this.#heard++;
        this.#catchUp().catch((e: unknown) => {
          this.#logger.error('transitkit/audit: reloading the audit table failed', e);
        });
      });
      // Subscribed first: the devices' table read below is then no older than the feed.
      await this.#watch.settled();
    }
    let table = await readTable(this.#storage);
    if (this.#sink && table.sink_salt === undefined) {
      const salt = newSalt(this.#backend);
      table = await updateTable(this.#storage, (t) =>
        t.sink_salt === undefined ? { ...t, sink_salt: salt } : undefined,
      );
    }
    if (this.#sink && table.sink_salt !== undefined) {
      this.#sinkHash = saltHasher(this.#backend, saltBytes(table.sink_salt));
      this.#sinkHashing = { hash: this.#sinkHash, tokens: tokenHasher(this.#sinkHash) };
    }
    // Read again in the devices' queue, as a notification's catch-up is: one that
    // arrives meanwhile is applied after this, never under an older table.
    await this.#catchUp();
  }

  /**
   * Whether this instance may lack a change another made to the table: a
   * notification not yet followed by a good read, or no live change feed
   * (its subscription failed, and is retried). Entries then read the table
   * first (fail closed: a device enabled elsewhere is never skipped here).
   */
  #behind(): boolean {
    const w = this.#watch;
    return w !== undefined && !this.#closed && (this.#heard !== this.#caughtUp || !w.live());
  }

  /** Read the table and bring the devices in line with it. */
  async #catchUp(): Promise<void> {
    const heard = this.#heard;
    await this.#devices.sync();
    if (this.#caughtUp < heard) this.#caughtUp = heard;
  }

  /** The devices after a change (./live-set.ts), sorted by path. */
  #setTargets(targets: LiveDevice[]): void {
    this.#targets = targets;
    this.#active = !this.#closed && (targets.length > 0 || this.#sink !== undefined);
    this.#someUnopened = targets.some((d) => d.device === undefined);
  }

  #failed(path: string, kind: 'request' | 'response', e: unknown): void {
    const reason = e instanceof Error ? e.message : String(e);
    try {
      this.#onFailure?.({ path, entry: kind, reason });
    } catch {
      // A failing counter must not change the request's outcome.
    }
    this.#logger.error(
      `transitkit/audit: device ${path} did not record a ${kind} entry: ${reason}`,
    );
  }

  async #toSink(input: AuditRequestInput, response: AuditResponseInput | undefined) {
    const sink = this.#sink as AuditSink;
    const hashing = this.#sinkHashing;
    if (!hashing) throw new Error('the audit sink has no salt');
    await sink(buildEntry(input, response, this.#sinkFormat, hashing));
  }

  async #log(input: AuditRequestInput, response: AuditResponseInput | undefined): Promise<void> {
    if (this.#closed) {
      if (this.#closedActive) throw internal('audit broker closed');
      return;
    }
    if (this.#behind()) {
      try {
        await this.#catchUp();
      } catch (e) {
        this.#logger.error('transitkit/audit: reading the audit table failed', e);
        throw internal('audit failure: the audit table could not be read');
      }
    }
    if (this.#someUnopened && this.#clock.now() - this.#lastReopenMs >= REOPEN_EVERY_MS) {
      await this.#openUnopened();
    }
    const kind = response ? 'response' : 'request';
    const targets = this.#targets;
    if (targets.length === 0 && !this.#sink) return;
    let ok = 0;
    const one = async (path: string, fn: () => Promise<void>) => {
      try {
        await fn();
        ok++;
      } catch (e) {
        this.#failed(path, kind, e);
      }
    };
    if (targets.length === 1 && !this.#sink) {
      await one((targets[0] as LiveDevice).path, () =>
        writeEntry(targets[0] as LiveDevice, input, response),
      );
    } else {
      const all = targets.map((d) => one(d.path, () => writeEntry(d, input, response)));
      if (this.#sink) all.push(one('sink', () => this.#toSink(input, response)));
      await Promise.all(all);
    }
    if (ok === 0) {
      throw internal(`audit failure: no audit device recorded the ${kind} (request ${input.id})`);
    }
  }
}
