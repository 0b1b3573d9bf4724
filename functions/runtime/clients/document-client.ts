import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, DynamoDBDocumentClientCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, type marshallOptions, unmarshall, type unmarshallOptions } from '@aws-sdk/util-dynamodb';

/**
 * The store's document client: takes the commands of `@aws-sdk/lib-dynamodb` (GetCommand,
 * UpdateCommand, …, plain JavaScript values in and out) and sends each as the low-level DynamoDB
 * command it wraps, through the shared low-level client, marshalling the input and unmarshalling
 * the output on the same key paths lib-dynamodb declares on each command (`inputKeyNodes`,
 * `outputKeyNodes`) with the same functions and defaults (`@aws-sdk/util-dynamodb`).
 *
 * Why not lib-dynamodb's `DynamoDBDocumentClient`: each of its sends resolves the client's
 * middleware stack for the document command and again for the command it wraps (each a copy of the
 * client stack with the command's own middleware added) and marshals through a further pair of
 * middleware. In the bench's warm profile (issue #17, section 2c) that SDK work was the largest
 * single consumer of a warm event's CPU beyond the same requests sent low-level. Here each request
 * is one low-level send of the command lib-dynamodb already built.
 *
 * Any other command (a plain DynamoDB command, as the Powertools idempotency layer sends) goes
 * to the low-level client unchanged. The key paths and the wrapped command are lib-dynamodb's own
 * (protected) members: test/store/document-client.test.ts compares every command the store sends,
 * on the wire and back, with lib-dynamodb's client, so an upgrade that changes them fails there,
 * and a document command without them is refused here rather than sent unmarshalled.
 */

/** A lib-dynamodb command: the low-level command it wraps and where its values sit. */
interface DocumentCommandLike {
  readonly input: object;
  readonly inputKeyNodes: KeyNodes;
  readonly outputKeyNodes: KeyNodes;
  /** The low-level command, built by the document command's constructor with the plain input. */
  readonly clientCommand: { input: unknown };
}

/**
 * lib-dynamodb's key paths: `{}` (ALL_VALUES) — every value of this object is one attribute value;
 * `[]` (ALL_MEMBERS) — every member of this list is; `null` (SELF) — this value is; `{"*": n}` —
 * every entry goes on with `n`; any other object — these keys go on with their own nodes.
 */
type KeyNodes = { readonly [key: string]: KeyNodes } | readonly never[] | null;

const NEXT_LEVEL = '*';

function isDocumentCommand(command: object): command is DocumentCommandLike {
  if (!(command instanceof DynamoDBDocumentClientCommand)) return false;
  if ('inputKeyNodes' in command && 'outputKeyNodes' in command && 'clientCommand' in command) return true;
  throw new Error(
    `${(command as object).constructor.name}: this lib-dynamodb command does not declare its key paths; the store's document client cannot send it`,
  );
}

type Convert = (value: unknown) => unknown;

/** The value at a key path, converted where the nodes say; everything else is copied as is. */
function convertAt(value: unknown, nodes: KeyNodes | undefined, convert: Convert): unknown {
  if (value === undefined || value === null || typeof value !== 'object') {
    return nodes === null ? convert(value) : value;
  }
  if (nodes === null) return convert(value);
  if (nodes === undefined) return value;
  if (Array.isArray(nodes)) {
    // ALL_MEMBERS: each member of a list is one value.
    return Array.isArray(value) ? value.map((member) => convert(member)) : value;
  }
  const keys = Object.keys(nodes);
  if (keys.length === 0) {
    // ALL_VALUES: each value of this map (or list) is one value.
    if (Array.isArray(value)) return value.map((member) => convert(member));
    const converted: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      const attribute = convert(member);
      if (attribute !== undefined) converted[key] = attribute;
    }
    return converted;
  }
  if (keys.length === 1 && keys[0] === NEXT_LEVEL) {
    const next = (nodes as Record<string, KeyNodes>)[NEXT_LEVEL];
    if (Array.isArray(value)) return value.map((member) => convertAt(member, next, convert));
    const converted: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) converted[key] = convertAt(member, next, convert);
    return converted;
  }
  const converted: Record<string, unknown> = Array.isArray(value)
    ? ([...value] as unknown as Record<string, unknown>)
    : { ...value };
  for (const key of keys) {
    if (key in converted) {
      const member = convertAt(converted[key], (nodes as Record<string, KeyNodes>)[key], convert);
      if (member === undefined) delete converted[key];
      else converted[key] = member;
    }
  }
  return converted;
}

export interface DocumentClientOptions {
  readonly marshallOptions?: marshallOptions;
  readonly unmarshallOptions?: unmarshallOptions;
}

export class DocumentClient {
  private readonly toAttribute: Convert;
  private readonly toNative: Convert;

  constructor(
    /** The low-level client every request goes through. */
    readonly client: DynamoDBClient,
    options: DocumentClientOptions = {},
  ) {
    // lib-dynamodb's defaults: a value at a key path is converted whole, a list or map included,
    // and read back without a map wrapper.
    const marshalling = {
      ...options.marshallOptions,
      convertTopLevelContainer: options.marshallOptions?.convertTopLevelContainer ?? true,
    };
    const unmarshalling = {
      ...options.unmarshallOptions,
      convertWithoutMapWrapper: options.unmarshallOptions?.convertWithoutMapWrapper ?? true,
    };
    // An undefined value at a key path is left out, as lib-dynamodb leaves it out.
    this.toAttribute = (value) => (value === undefined ? undefined : marshall(value as never, marshalling));
    this.toNative = (value) => unmarshall(value as never, unmarshalling);
  }

  /** Sends a lib-dynamodb command as its low-level command; any other command unchanged. */
  readonly send = (async (command: object) => {
    if (!isDocumentCommand(command)) return this.client.send(command as never);
    // The wrapped command is sent with its input marshalled (it was built with the plain input),
    // rather than a third command built for it.
    const lowLevel = command.clientCommand;
    lowLevel.input = convertAt(command.input, command.inputKeyNodes, this.toAttribute);
    const output = (await this.client.send(lowLevel as never)) as object;
    return convertAt(output, command.outputKeyNodes, this.toNative);
  }) as DynamoDBDocumentClient['send'];

  destroy(): void {
    this.client.destroy();
  }
}
