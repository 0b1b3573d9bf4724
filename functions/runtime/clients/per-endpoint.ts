/**
 * A process-wide SDK client, built on first use rather than at import, for the endpoint the
 * environment names at the time (`variable`, an `AWS_ENDPOINT_URL_<SERVICE>` the SDK itself reads
 * when it builds a client: AWS SDKs and Tools Reference Guide, "Service-specific endpoints"; unset:
 * AWS's own). A deployed function's environment never changes, so
 * it has one client per service; the local runtime and the tests set the variable before anything
 * connects, and test files that share a worker process (vitest.config.ts) each name their own
 * endpoint, so none is handed a client of an endpoint gone with an earlier file. A client also
 * keeps the region and credentials it first read; every local runtime and test runs in one region,
 * and the local runtime gives each invocation its function's credentials through the variables
 * the SDK reads (local/runtime/lambda-environment.ts).
 */
export function perEndpoint<Client>(variable: string, build: () => Client): () => Client {
  const clients = new Map<string | undefined, Client>();
  return () => {
    const endpoint = process.env[variable];
    let client = clients.get(endpoint);
    if (client === undefined) {
      client = build();
      clients.set(endpoint, client);
    }
    return client;
  };
}
