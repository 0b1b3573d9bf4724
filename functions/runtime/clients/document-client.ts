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
  readonly inputKeyNodes: Record<string, KeyNodes>;
  readonly outputKeyNodes: Record<string, KeyNodes>;
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

/*
 * The walk over the key paths is lib-dynamodb's own (`processObj`, `processKeysInObj`,
 * `processAllKeysInObj` in its commands/utils.js, Apache-2.0), which its package does not export:
 * the same key paths give the same values, undefined and function values left out as it leaves
 * them out, and a null where a map is expected refused as it refuses it.
 */

/** The value at a key path, converted where the nodes say. */
function convertAt(value: unknown, nodes: KeyNodes | undefined, convert: Convert): unknown {
  if (value === undefined) return undefined;
  if (nodes === null || nodes === undefined) return convert(value);
  const keys = Object.keys(nodes);
  if (keys.length === 1 && keys[0] === NEXT_LEVEL) {
    const next = (nodes as Record<string, KeyNodes>)[NEXT_LEVEL];
    const converted: Record<string, unknown> = (Array.isArray(value) ? [] : {}) as Record<string, unknown>;
    for (const [key, member] of Object.entries(value ?? {})) {
      if (typeof member !== 'function') converted[key] = convertAt(member, next, convert);
    }
    return converted;
  }
  // `{}` (ALL_VALUES) or `[]` (ALL_MEMBERS): every value of this map, every member of this list.
  if (keys.length === 0) return convertEach(value, convert);
  return convertKeys(value as object, nodes as Record<string, KeyNodes>, convert);
}

/** These keys of `value` converted by their own nodes; the others copied as they are. */
function convertKeys(value: object, nodes: Record<string, KeyNodes>, convert: Convert): unknown {
  const converted: Record<string, unknown> = (
    Array.isArray(value)
      ? value.filter((member) => typeof member !== 'function')
      : Object.fromEntries(Object.entries(value).filter(([, member]) => typeof member !== 'function'))
  ) as Record<string, unknown>;
  const source = value as Record<string, unknown>;
  for (const [key, keyNodes] of Object.entries(nodes)) {
    if (typeof source[key] === 'function') continue;
    const member = convertAt(source[key], keyNodes, convert);
    if (member !== undefined && typeof member !== 'function') converted[key] = member;
  }
  return converted;
}

/** Every member of a list, or every value of a map, as one value. */
function convertEach(value: unknown, convert: Convert): unknown {
  if (Array.isArray(value)) {
    return value
      .filter((member) => typeof member !== 'function')
      .map((member) => convertAt(member, null, convert));
  }
  const converted: Record<string, unknown> = {};
  // Object.entries refuses null, as lib-dynamodb's walk does.
  for (const [key, member] of Object.entries(value as object)) {
    if (typeof member === 'function') continue;
    const attribute = convertAt(member, null, convert);
    if (attribute !== undefined && typeof attribute !== 'function') converted[key] = attribute;
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

  /**
   * Sends a lib-dynamodb command as its low-level command; any other command unchanged. Typed as
   * lib-dynamodb's client's `send`, but takes the command alone: no options, no callback.
   */
  readonly send = (async (command: object, ...unsupported: unknown[]) => {
    if (unsupported.length > 0) {
      throw new TypeError("the store's document client sends a command alone (no options, no callback)");
    }
    if (!isDocumentCommand(command)) return this.client.send(command as never);
    // The wrapped command is sent with its input marshalled (it was built with the plain input),
    // rather than a third command built for it; the plain input is put back after.
    const lowLevel = command.clientCommand;
    const plain = lowLevel.input;
    lowLevel.input = convertKeys(command.input, command.inputKeyNodes, this.toAttribute);
    try {
      const output = (await this.client.send(lowLevel as never)) as object;
      return convertKeys(output, command.outputKeyNodes, this.toNative);
    } finally {
      lowLevel.input = plain;
    }
  }) as DynamoDBDocumentClient['send'];

  destroy(): void {
    this.client.destroy();
  }
}
