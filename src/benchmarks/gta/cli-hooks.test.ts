import { describe, expect, it } from 'vitest';
import { gtaPlugin } from './plugin.js';
import { GTA_ARCHIVE, GTA_DATASET_RELEASE } from './pull-gta.js';
import { GTA_TOOL_NAMES } from './tools/registry.js';

describe("GTA's plugin manifest (light: it repeats what the heavy modules define)", () => {
  it('pins the release archive and names its release', () => {
    const download = gtaPlugin.downloads?.[0];
    expect(download?.files).toEqual([GTA_ARCHIVE]);
    expect(GTA_DATASET_RELEASE.url).toContain('/v0.1.0/');
    expect(download?.url).toBe(
      `where to download ${GTA_ARCHIVE} from (default: the official v0.1.0 release)`,
    );
  });

  it('gives examples that are GTA tools', () => {
    for (const name of gtaPlugin.toolsets?.[0]?.examples ?? []) expect(GTA_TOOL_NAMES).toContain(name);
  });
});
