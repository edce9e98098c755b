// Types for entries.mjs, so that tsup.config.ts can import it under `tsc --noEmit`.
export declare const PACKAGE_NAME: string;
export declare const SUBPATHS: ReadonlyArray<{
  subpath: string;
  source: string;
  browser?: boolean;
}>;
export declare const BACKEND_SPECIFIER: string;
export declare const BACKENDS: ReadonlyArray<{ entry: string; source: string; condition: string }>;
export declare const BINS: ReadonlyArray<{ bin: string; entry: string; source: string }>;
export declare function entryName(subpath: string): string;
export declare function reportName(subpath: string): string;
export declare function distFiles(entry: string): {
  import: string;
  require: string;
  importTypes: string;
  requireTypes: string;
};
export declare function tsupEntries(options?: { bins?: boolean }): Record<string, string>;
