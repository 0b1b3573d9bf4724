// The DynamoDB-compatible server lives with the local runtime, which uses it too; tests reach it here.
export * from '#local/dynalite.ts';
