import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The files that hold a worker longest start first, so they run beside everything else instead
// of after it (a fresh clone has no timings cache, and vitest would order them by size). The
// first is the run's critical path: three Elasticsearch nodes, restarted one by one. The other
// files that start nodes of their own come a little later, not beside that cluster's start: nodes
// starting at once on two cores each take minutes. Files not listed keep vitest's order.
const LONG_FILES = [
  'test/integration/cluster/node-loss.test.ts',
  'test/integration/search/offer-filters-match-reference.test.ts',
  'test/integration/dispatcher/endpoint-fairness.test.ts',
  'test/integration/dispatcher/delivery.test.ts',
  'test/integration/indexer/fault-tolerance.test.ts',
  'test/integration/indexer/burst-lanes.test.ts',
  'test/integration/search/degraded/cluster-failures.test.ts',
];

const rank = (spec: TestSpecification): number => {
  const i = LONG_FILES.findIndex((f) => spec.moduleId.endsWith(f));
  return i < 0 ? LONG_FILES.length : i;
};

export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
