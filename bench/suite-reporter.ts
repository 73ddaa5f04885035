import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

// A vitest reporter for bench/suite-time.sh: how long each test file held a worker (from the
// moment it was queued in a worker to its end, so imports, beforeAll/afterAll and every test are
// in), and the run's wall time. vitest's own json report has only the tests' times, which leaves
// out a file's setup (a cluster started in beforeAll), where most of the time goes.

interface FileTime {
  file: string;
  project: string;
  /** Seconds from the run's start to the file being queued in a worker, and to its end. */
  queuedAt: number;
  endedAt: number;
  /** Seconds the file held its worker. */
  wall: number;
  /** Seconds importing the file (its collect phase), and in its tests and hooks. */
  collect: number;
  testsAndHooks: number;
  tests: number;
  failed: number;
}

export default class SuiteTimeReporter implements Reporter {
  private readonly started = Date.now();
  private readonly queued = new Map<string, number>();
  private readonly times: FileTime[] = [];
  private root = process.cwd();

  onInit(ctx: { config: { root: string } }): void {
    this.root = ctx.config.root;
  }

  onTestModuleQueued(m: TestModule): void {
    this.queued.set(m.moduleId, Date.now());
  }

  onTestModuleEnd(m: TestModule): void {
    const now = Date.now();
    const d = m.diagnostic();
    const queuedAt = this.queued.get(m.moduleId) ?? now;
    const tests = [...m.children.allTests()];
    this.times.push({
      file: path.relative(this.root, m.moduleId),
      project: m.project.name,
      queuedAt: (queuedAt - this.started) / 1000,
      endedAt: (now - this.started) / 1000,
      wall: (now - queuedAt) / 1000,
      collect: d.collectDuration / 1000,
      testsAndHooks: d.duration / 1000,
      tests: tests.length,
      failed: tests.filter((t) => t.result().state === 'failed').length,
    });
  }

  onTestRunEnd(): void {
    const wall = (Date.now() - this.started) / 1000;
    const sorted = [...this.times].sort((a, b) => b.wall - a.wall);
    const workerSeconds = sorted.reduce((s, t) => s + t.wall, 0);
    const out = process.env.SUITE_TIMES_FILE;
    if (out) writeFileSync(out, JSON.stringify({ wall, workerSeconds, files: sorted }, null, 2));
    const lines = sorted
      .slice(0, Number(process.env.SUITE_TIMES_TOP ?? 25))
      .map((t) => `${t.wall.toFixed(1).padStart(7)} s  ${t.queuedAt.toFixed(0).padStart(4)}-${t.endedAt.toFixed(0).padEnd(4)}  ${t.file}`);
    console.log(
      [
        '',
        `[suite-time] vitest wall ${wall.toFixed(1)} s, ${this.times.length} files, ${workerSeconds.toFixed(0)} worker-seconds; the longest files (held a worker, queued-ended):`,
        ...lines,
      ].join('\n'),
    );
  }
}
