import type { ConnectorConfig } from '#functions/commons/config.ts';
import { outboundContracts } from '#functions/commons/contracts/registry.ts';
import { buildFunctionDependencies, type Dependencies } from './function-dependencies.ts';

export {
  buildFunctionDependencies,
  type Clock,
  type Dependencies,
  systemClock,
} from './function-dependencies.ts';

/**
 * The process-wide collaborators with a publisher that may publish every outbound detail-type,
 * for tools and tests; handlers use `buildFunctionDependencies` with what they publish.
 */
export function buildDependencies(config: ConnectorConfig): Dependencies {
  return buildFunctionDependencies(config, outboundContracts);
}
