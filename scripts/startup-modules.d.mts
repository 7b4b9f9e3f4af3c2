export declare function startupModules(): {
  lazy: string[];
  evaluated: string[];
  collations: number;
};
