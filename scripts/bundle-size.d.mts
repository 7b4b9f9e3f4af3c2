export declare const BUDGET_GZIP_BYTES: number;
export declare const TARGET_GZIP_BYTES: number;
export declare function measureBundle(): {
  bytes: number;
  gzip: number;
  largest: Array<{ module: string; bytes: number }>;
};
