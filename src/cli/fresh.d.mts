// Types for fresh.mjs, which stays JavaScript so that bin.mjs can run it before any build.
export declare const CLI_OUT_DIR: string;
export declare const CLI_ENTRY: string;
export declare function staleReason(root: string, outDir?: string): string | null;
