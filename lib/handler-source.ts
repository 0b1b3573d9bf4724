/**
 * Template metadata naming a function's source module: the bundle in the asset is built from it,
 * and the local runtime (local/) runs the module itself, so local and deployed run the same code.
 * Kept apart from connector-function.ts so the local runtime reads it without loading the CDK.
 */
export const HANDLER_SOURCE_METADATA = 'WorkforceConnector::HandlerSource';

export interface HandlerSource {
  /** Repository-relative path of the handler module. */
  readonly entry: string;
  readonly handlerExport: string;
}
