import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * MIX_HEAP_SAMPLE=<file>: V8's sampling heap profiler over the run, counting the objects collected since they were
 * allocated too (by either collector), so the profile says where the run's allocations came from, the garbage
 * included, not only what is still alive at the end. Returns the function that writes the profile.
 */
export async function sampleAllocations(file: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env.MIX_HEAP_SAMPLE_MINOR !== '0',
  });
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}
