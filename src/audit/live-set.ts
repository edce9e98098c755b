/**
 * The audit devices open on one instance (broker.ts), kept in line with the
 * stored table: one {@link LiveDevice} per path, opened with its type's
 * factory (a device that fails to open stays, failing every entry, until it
 * opens), and every change — a device enabled or disabled here, a watch
 * notification, opening again those that failed, closing — run one at a
 * time, in the order asked.
 *
 * After each change the devices go to the broker, sorted by path: the array
 * its fan-out reads, so an entry never touches this set.
 *
 * Runtime-neutral.
 * @module
 */
import type { CryptoBackend } from '../crypto/backend.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { serial } from '../util/serial.js';
import { type LiveDevice, liveDevice, openLive } from './live.js';
import { type AuditTable, readTable, type StoredDevice } from './table.js';
import type { AuditDevice, AuditDeviceFactory } from './types.js';

/** What a {@link LiveSet} works with, and whom it tells. @internal */
export interface LiveSetOptions {
  /** Where the table is read again on a change notification. */
  readonly storage: StorageAdapter;
  readonly backend: CryptoBackend;
  /** Device types by name. */
  readonly factories: Readonly<Record<string, AuditDeviceFactory>>;
  readonly logger: { error(message: string, error?: unknown): void };
  /** Whether a stored device's `prefix` is used (else its entries go without it). */
  readonly allowPrefix: boolean;
  /** Whether the broker closed: a reload or a reopen then does nothing. */
  closed(): boolean;
  /** Called after every change with the devices, sorted by path. */
  changed(targets: LiveDevice[]): void;
}

/** @internal */
export class LiveSet {
  readonly #o: LiveSetOptions;
  readonly #live = new Map<string, LiveDevice>();
  readonly #serial = serial();

  constructor(options: LiveSetOptions) {
    this.#o = options;
  }

  /**
   * Put a device just enabled here in place (its output already open); when a
   * watch notification already opened it, that one is kept and this closed.
   */
  add(path: string, stored: StoredDevice, device: AuditDevice): Promise<void> {
    return this.#serial(async () => {
      const old = this.#live.get(path);
      if (old && old.stored.salt === stored.salt) {
        // A watch notification already opened it: keep that one.
        await device.close().catch(() => undefined);
        return;
      }
      this.#live.set(path, liveDevice(this.#o.backend, path, stored, device, undefined));
      this.#refresh();
      if (old) await old.device?.close().catch(() => undefined);
    });
  }

  /** Close and drop the device at `path` (just disabled); nothing when there is none. */
  remove(path: string): Promise<void> {
    return this.#serial(async () => {
      const old = this.#live.get(path);
      if (!old) return;
      this.#live.delete(path);
      this.#refresh();
      await old.device?.close().catch(() => undefined);
    });
  }

  /**
   * Read the table and bring the devices in line (at start, and after another
   * instance changed it): read in the queue, so the last read is applied last.
   */
  sync(): Promise<void> {
    return this.#serial(async () => {
      if (this.#o.closed()) return;
      await this.#apply(await readTable(this.#o.storage));
    });
  }

  /** Open again the devices that failed to open here. */
  openUnopened(): Promise<void> {
    return this.#serial(async () => {
      if (this.#o.closed()) return;
      for (const [p, live] of this.#live) {
        if (live.device) continue;
        this.#live.set(p, await this.#open(p, live.stored));
      }
      this.#refresh();
    });
  }

  /** Drop every device, then flush and close them. */
  closeAll(): Promise<void> {
    return this.#serial(async () => {
      const all = [...this.#live.values()];
      this.#live.clear();
      this.#refresh();
      await Promise.all(all.map((d) => d.device?.close().catch(() => undefined)));
    });
  }

  /** Open a stored device with its type's factory (a failure gives one that fails every entry). */
  #open(path: string, stored: StoredDevice): Promise<LiveDevice> {
    const { factories, backend, logger, allowPrefix } = this.#o;
    const factory = Object.hasOwn(factories, stored.type) ? factories[stored.type] : undefined;
    return openLive(factory, backend, path, stored, logger, allowPrefix);
  }

  /** Open what the table has and this instance lacks; close what it dropped. */
  async #apply(table: AuditTable): Promise<void> {
    if (this.#o.closed()) return;
    const closing: LiveDevice[] = [];
    for (const [p, live] of this.#live) {
      const want = table.devices[p];
      if (!want || want.salt !== live.stored.salt) {
        this.#live.delete(p);
        closing.push(live);
      }
    }
    for (const [p, stored] of Object.entries(table.devices)) {
      if (this.#live.has(p)) continue;
      this.#live.set(p, await this.#open(p, stored));
    }
    this.#refresh();
    await Promise.all(closing.map((d) => d.device?.close().catch(() => undefined)));
  }

  #refresh(): void {
    this.#o.changed([...this.#live.values()].sort((a, b) => (a.path < b.path ? -1 : 1)));
  }
}
