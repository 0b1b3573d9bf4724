import { describe, expect, it } from 'vitest';
import { cpuByConsumer, type SampledProfile } from '#bench/warm-profile.ts';

describe('a warm profile', () => {
  // Samples 100 µs apart from t = 1 000 µs: each counts in the window its end falls in.
  const frames = [
    { url: 'file:///work/main/node_modules/zod/v4/core/schemas.js', functionName: 'parse' },
    { url: 'file:///work/main/functions/service/http.ts', functionName: 'interpret' },
    { url: '', functionName: '(garbage collector)' },
    { url: 'node:internal/streams/readable', functionName: 'push' },
    { url: 'file:///work/main/sandbox/server.ts', functionName: 'dispatch' },
    { url: '', functionName: '(idle)' },
  ];
  const profile: SampledProfile = {
    nodes: frames.map((callFrame, index) => ({ id: index + 1, callFrame })),
    startTime: 1_000,
    samples: [1, 2, 3, 4, 5, 6, 1, 2],
    timeDeltas: [100, 100, 100, 100, 100, 100, 100, 100],
  };

  it('gives each sample inside a window to what its frame belongs to, and none outside', () => {
    // Act: samples end at 1 100 … 1 800 µs; the windows take 1 100–1 300 and 1 500–1 700.
    const spent = cpuByConsumer(profile, [
      [1_500, 1_700],
      [1_050, 1_300],
    ]);

    // Assess
    expect(Object.fromEntries(spent)).toEqual({
      zod: 0.2,
      'connector: functions/service/': 0.1,
      gc: 0.1,
      'bench process (local runtime, sandbox)': 0.1,
    });
  });

  it('counts nothing when no window holds a sample', () => {
    expect(cpuByConsumer(profile, [[0, 999]]).size).toBe(0);
  });
});
