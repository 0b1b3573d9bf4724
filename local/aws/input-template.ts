import { type JsonPathSegment, parseJsonPath, selectJsonPath } from './json-path.ts';

/**
 * EventBridge Pipes `InputTemplate` evaluation, as the EventBridge user guide describes it in
 * "Amazon EventBridge Pipes input transformation":
 *
 * - A template is free text, a JSON path (`<$.body>`), or JSON with inline `<...>` variables.
 * - Reserved variables: `<aws.pipes.pipe-arn>`, `<aws.pipes.pipe-name>`, `<aws.pipes.source-arn>`,
 *   `<aws.pipes.enrichment-arn>`, `<aws.pipes.target-arn>`, `<aws.pipes.event.ingestion-time>`,
 *   `<aws.pipes.event>` and `<aws.pipes.event.json>`.
 * - "Implicit body data parsing": the SQS `body` is parsed when it is valid JSON, so `<$.body.x>`
 *   reads inside it. "If the original payload is a valid JSON string (for example
 *   {"key": "value"}), then use of the input transformer with source specific body data will
 *   result in the quotes within the original source payload being removed. For example,
 *   {"key": "value"} will become "{key: value}" when delivered to the target." To keep valid JSON,
 *   "wrap the source body data input transformer in JSON. For example, {"data": <$.data>}".
 * - Quoting ("Common issues with transforming input"): "Quotes are not required for variables that
 *   represent strings. They are permitted, but EventBridge Pipes automatically adds quotes to string
 *   variable values ... Do not add quotes for variables that represent JSON objects or arrays." So in
 *   a JSON position a string is inserted quoted and an object or array as JSON; inside quotes, as
 *   escaped text.
 *
 * Not documented ("If you specify a variable to match a JSON path that doesn't exist in the event,
 * that variable isn't created"), and decided here: a path that selects nothing inserts `null` in a
 * JSON position and the empty string inside quotes or in free text.
 */

export interface PipeContext {
  readonly pipeArn: string;
  readonly pipeName: string;
  readonly sourceArn: string;
  readonly targetArn: string;
  readonly enrichmentArn?: string;
  /** ISO 8601 time at which the input transformer received the event. */
  readonly ingestionTime: string;
}

type Part =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'variable';
      readonly name: string;
      readonly path?: readonly JsonPathSegment[];
      readonly quoted: boolean;
    };

export interface CompiledTemplate {
  readonly source: string;
  /** The whole template is one JSON path variable (the case the implicit-parsing rule names). */
  readonly barePath: boolean;
  evaluate(event: unknown, context: PipeContext): string;
}

const RESERVED = new Set([
  'aws.pipes.pipe-arn',
  'aws.pipes.pipe-name',
  'aws.pipes.source-arn',
  'aws.pipes.enrichment-arn',
  'aws.pipes.target-arn',
  'aws.pipes.event.ingestion-time',
  'aws.pipes.event',
  'aws.pipes.event.json',
]);

/** Compiles a template once (at start-up), so an unsupported variable stops the runtime early. */
export function compileInputTemplate(template: string): CompiledTemplate {
  const parts: Part[] = [];
  let index = 0;
  let inString = false;
  let text = '';
  while (index < template.length) {
    const char = template[index] as string;
    if (char === '<') {
      const end = template.indexOf('>', index);
      const name = end < 0 ? '' : template.slice(index + 1, end);
      if (end > 0 && (name.startsWith('$') || RESERVED.has(name))) {
        if (text !== '') parts.push({ kind: 'text', text });
        text = '';
        parts.push(
          name.startsWith('$')
            ? { kind: 'variable', name, path: parseJsonPath(name), quoted: inString }
            : { kind: 'variable', name, quoted: inString },
        );
        index = end + 1;
        continue;
      }
      if (end > 0 && name.startsWith('aws.')) {
        throw new Error(`input template variable <${name}> is not a reserved variable of EventBridge Pipes`);
      }
    }
    if (char === '"' && template[index - 1] !== '\\') inString = !inString;
    text += char;
    index++;
  }
  if (text !== '') parts.push({ kind: 'text', text });
  const barePath = parts.length === 1 && parts[0]?.kind === 'variable' && parts[0].path !== undefined;
  // A JSON template is one that is JSON around its variables; anything else is free text, where
  // the implicit-parsing rule strips the quotes of an inserted object ("Body is <$.body>" too).
  const jsonTemplate = /^\s*[[{]/.test(template);

  return {
    source: template,
    barePath,
    evaluate(event, context) {
      return parts
        .map((part) => {
          if (part.kind === 'text') return part.text;
          const value = resolve(part, event, context);
          if (!jsonTemplate) return bareValue(value);
          return part.quoted ? quotedValue(value) : jsonValue(value);
        })
        .join('');
    },
  };
}

/** The event a pipe's transformer sees: the SQS record with its body parsed when it is JSON. */
export function withImplicitBodyParsing(record: Record<string, unknown>): Record<string, unknown> {
  const body = record['body'];
  if (typeof body !== 'string') return record;
  try {
    return { ...record, body: JSON.parse(body) as unknown };
  } catch {
    return record;
  }
}

function resolve(part: Extract<Part, { kind: 'variable' }>, event: unknown, context: PipeContext): unknown {
  if (part.path) return selectJsonPath(event, part.path);
  switch (part.name) {
    case 'aws.pipes.pipe-arn':
      return context.pipeArn;
    case 'aws.pipes.pipe-name':
      return context.pipeName;
    case 'aws.pipes.source-arn':
      return context.sourceArn;
    case 'aws.pipes.enrichment-arn':
      return context.enrichmentArn ?? '';
    case 'aws.pipes.target-arn':
      return context.targetArn;
    case 'aws.pipes.event.ingestion-time':
      return context.ingestionTime;
    case 'aws.pipes.event':
    case 'aws.pipes.event.json':
      return event;
    default:
      return undefined;
  }
}

/** A variable in free text (a bare path among them): a string as is; JSON with its quotes removed. */
function bareValue(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value).replaceAll('"', '');
  return String(value);
}

/** A variable in a JSON position: its JSON (Pipes adds the quotes of a string itself). */
function jsonValue(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}

/** A variable inside a JSON string: its text, escaped so the string stays valid. */
function quotedValue(value: unknown): string {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return JSON.stringify(text).slice(1, -1);
}

/** The value of a dynamic path parameter (e.g. MessageGroupId), read from the original event. */
export function dynamicParameter(path: string): (event: unknown) => unknown {
  const segments = parseJsonPath(path);
  return (event) => selectJsonPath(event, segments);
}
