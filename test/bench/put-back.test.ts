import { describe, expect, it } from 'vitest';
import { withPutBack } from '#bench/put-back.ts';

describe('borrowing state for a replay', () => {
  it('gives it back after the run, and after a failed set-up too', async () => {
    // Prepare
    const steps: string[] = [];
    const restore = async () => {
      steps.push('restore');
    };

    // Act
    const result = await withPutBack('x', {
      setUp: async () => void steps.push('set up'),
      run: async () => 'ran',
      restore,
    });
    const failedSetUp = withPutBack('x', {
      setUp: async () => {
        throw new Error('set-up failed');
      },
      run: async () => 'never',
      restore,
    });

    // Assess
    expect(result).toBe('ran');
    await expect(failedSetUp).rejects.toThrow('set-up failed');
    expect(steps).toEqual(['set up', 'restore', 'restore']);
  });

  it('reports a failed run and a failed give-back together, and a failed give-back alone', async () => {
    // Prepare
    const restore = async () => {
      throw new Error('restore failed');
    };

    // Act
    const both = withPutBack('the replay and putting it back', {
      setUp: async () => undefined,
      run: async () => {
        throw new Error('run failed');
      },
      restore,
    }).catch((error: unknown) => error);
    const alone = withPutBack('x', { setUp: async () => undefined, run: async () => 1, restore });

    // Assess
    const error = (await both) as AggregateError;
    expect(error).toBeInstanceOf(AggregateError);
    expect(error.message).toBe('the replay and putting it back both failed');
    expect(error.errors.map((one: Error) => one.message)).toEqual(['run failed', 'restore failed']);
    await expect(alone).rejects.toThrow('restore failed');
  });
});
