// Every index and alias name starts with INDEX_PREFIX so several deployments can share a cluster.
// Readers and the live indexer always go through the alias; reindex builds a new concrete
// index and swaps the alias in one call.

export interface IndexNames {
  alias: string;
  /** Pattern matching every concrete index behind the alias (for cleanup). */
  pattern: string;
  concrete(stamp: string): string;
}

export function indexNames(prefix: string): IndexNames {
  const alias = `${prefix}-market`;
  return {
    alias,
    pattern: `${alias}-v*`,
    concrete: (stamp) => `${alias}-v${stamp}`,
  };
}
