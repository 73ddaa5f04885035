// Prometheus text exposition, for the API's /metrics and the indexer's (and next the dispatcher's).

export interface Sample {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  value: number;
  labels?: Record<string, string>;
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** Prometheus text exposition (version 0.0.4); samples of one name must be adjacent. */
export function renderPrometheus(samples: Sample[]): string {
  const out: string[] = [];
  let last = '';
  for (const s of samples) {
    if (s.name !== last) {
      out.push(`# HELP ${s.name} ${s.help}`, `# TYPE ${s.name} ${s.type}`);
      last = s.name;
    }
    const labels = s.labels
      ? `{${Object.entries(s.labels)
          .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
          .join(',')}}`
      : '';
    out.push(`${s.name}${labels} ${Number.isFinite(s.value) ? s.value : 0}`);
  }
  return `${out.join('\n')}\n`;
}
