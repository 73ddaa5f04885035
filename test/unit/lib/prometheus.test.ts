import { describe, expect, it } from 'vitest';
import { renderPrometheus } from '../../../src/lib/prometheus.js';

describe('prometheus text', () => {
  it('renders HELP/TYPE once per name and escapes labels', () => {
    const text = renderPrometheus([
      { name: 'a', help: 'A', type: 'gauge', value: 1, labels: { s: 'x"y' } },
      { name: 'a', help: 'A', type: 'gauge', value: 0, labels: { s: 'z' } },
      { name: 'b_total', help: 'B', type: 'counter', value: 3 },
    ]);
    expect(text).toBe('# HELP a A\n# TYPE a gauge\na{s="x\\"y"} 1\na{s="z"} 0\n# HELP b_total B\n# TYPE b_total counter\nb_total 3\n');
  });
});
