import type { PoolClient } from './pool.js';

// SQL of the platform_settings singleton row.

export interface PlatformSettingsRow {
  poBoxSuspended: boolean;
}

/** Sets the platform-wide switches; an unchanged value writes nothing (no change feed row). */
export async function updatePlatformSettings(c: PoolClient, s: PlatformSettingsRow): Promise<number> {
  const res = await c.query('UPDATE platform_settings SET po_box_suspended = $1 WHERE po_box_suspended IS DISTINCT FROM $1', [s.poBoxSuspended]);
  return res.rowCount ?? 0;
}
