import { describe, expect, it } from 'vitest';
import { appBenchEvalFlags, mapLegacyAppBenchFlags } from './eval-flags.js';

describe('appbench eval flags', () => {
  it('maps today’s AppBench flags onto solver and options', () => {
    expect(
      mapLegacyAppBenchFlags('appbench', {
        prompting: 'hierarchical',
        shots: '2',
        demos: 'random',
        categories: 'SS,mm,ss',
      }),
    ).toEqual({
      prompting: 'hierarchical',
      solverOptions: { shots: 2, demos: 'random' },
      taskOptions: { categories: ['ss', 'mm'] },
    });
    expect(mapLegacyAppBenchFlags('appbench', {})).toEqual({ solverOptions: {}, taskOptions: {} });
    expect(() => mapLegacyAppBenchFlags('appbench', { prompting: 'tree' })).toThrow(
      '--prompting must be one of flat | hierarchical (got "tree")',
    );
    expect(() => mapLegacyAppBenchFlags('appbench', { categories: 'ss,xx' })).toThrow(
      '--categories must be a comma-separated list of ss | sm | ms | mm (got "xx")',
    );
    expect(() => mapLegacyAppBenchFlags('toolbench-retrieval', { demos: 'random' })).toThrow(
      '--demos is an appbench flag; for toolbench-retrieval use --solver and --option key=value',
    );
  });

  it('are the task settings of `apiary eval appbench`', () => {
    expect(appBenchEvalFlags.settings({ prompting: 'flat', shots: '3', categories: 'mm' })).toEqual({
      solverWithModel: 'flat',
      solverOptions: { shots: 3 },
      taskOptions: { categories: ['mm'] },
    });
    expect(appBenchEvalFlags.flags.map((f) => f.notForTask(f.flags.split(' ')[0]!, 'gta'))).toEqual([
      '--prompting is an appbench flag; for gta use --solver and --option key=value (see apiary tasks)',
      '--shots is an appbench flag; for gta use --solver and --option key=value (see apiary tasks)',
      '--demos is an appbench flag; for gta use --solver and --option key=value (see apiary tasks)',
      '--categories is an appbench flag; for gta use --solver and --option key=value (see apiary tasks)',
    ]);
  });
});
