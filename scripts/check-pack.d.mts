/** Types of check-pack.mjs for the tests (test/tooling/pack.test.ts). */
export declare const MPL_2_0_SHA256: string;
export declare function packProblems(files: string[], pkg: Record<string, unknown>): string[];
export declare function readmeLinkProblems(files: string[], readme: string): string[];
