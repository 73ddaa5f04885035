// Every index and alias name starts with INDEX_PREFIX so several deployments can share a cluster.
// Readers and the live indexer always go through the alias; reindex builds a new concrete
// index and swaps the alias in one call.

/** Shards and replicas a new concrete index is created with (INDEX_SHARDS, INDEX_REPLICAS). */
export interface IndexLayout {
  shards: number;
  replicas: number;
}

/** One node: one shard, no replica (a replica could never be placed, and the index would stay yellow). */
export const SINGLE_NODE_LAYOUT: IndexLayout = { shards: 1, replicas: 0 };

export interface IndexNames {
  alias: string;
  /** Pattern matching every concrete index behind the alias (for cleanup). */
  pattern: string;
  concrete(stamp: string): string;
  /** How a rebuild creates the next concrete index. */
  layout: IndexLayout;
}

export function indexNames(prefix: string, layout: IndexLayout = SINGLE_NODE_LAYOUT): IndexNames {
  const alias = `${prefix}-market`;
  return {
    alias,
    pattern: `${alias}-v*`,
    concrete: (stamp) => `${alias}-v${stamp}`,
    layout,
  };
}

/** The layout the environment asks for. */
export function indexLayout(env: { INDEX_SHARDS: number; INDEX_REPLICAS: number }): IndexLayout {
  return { shards: env.INDEX_SHARDS, replicas: env.INDEX_REPLICAS };
}
