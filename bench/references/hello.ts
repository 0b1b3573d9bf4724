/**
 * Cold-start reference: the smallest possible Lambda handler. Node's own start-up plus the runner,
 * and nothing of the connector or the SDK.
 */
export const handler = async (event: unknown): Promise<{ received: boolean }> => ({
  received: event !== undefined,
});
