import { describe, expect, it } from 'vitest';
import { PIPE_INPUT_TEMPLATE } from '#functions/contracts/envelope.ts';
import {
  compileInputTemplate,
  dynamicParameter,
  withImplicitBodyParsing,
} from '#local/aws/input-template.ts';

const context = {
  pipeArn: 'arn:aws:pipes:us-east-1:000000000000:pipe/example',
  pipeName: 'example',
  sourceArn: 'arn:aws:sqs:us-east-1:000000000000:intake',
  targetArn: 'arn:aws:sqs:us-east-1:000000000000:route.fifo',
  ingestionTime: '2025-03-03T09:00:00.000Z',
};
const record = (body: string) =>
  withImplicitBodyParsing({ messageId: 'm-1', body, attributes: { SenderId: 'AIDAEXAMPLE' } });

describe('EventBridge Pipes InputTemplate ("Amazon EventBridge Pipes input transformation")', () => {
  it('strips the quotes of a JSON body given as a bare <$.body>, as the implicit body parsing section warns', () => {
    // Act
    const output = compileInputTemplate('<$.body>').evaluate(record('{"key": "value"}'), context);

    // Assess: the documented example, {"key": "value"} → {key: value}: no longer JSON.
    expect(output).toBe('{key:value}');
    expect(() => JSON.parse(output)).toThrow();
  });

  it('keeps the body as valid JSON when the template wraps it, as the connector pipe does', () => {
    // Prepare
    const event = { id: 'e-1', 'detail-type': 'AccountCreated', detail: { accountId: 'acct "quoted"' } };

    // Act
    const output = compileInputTemplate(PIPE_INPUT_TEMPLATE).evaluate(record(JSON.stringify(event)), context);

    // Assess
    expect(JSON.parse(output)).toEqual({ event });
  });

  it('inserts strings quoted in a JSON position, as text inside quotes, and fills the reserved variables', () => {
    // Prepare
    const template = compileInputTemplate(
      '{"sender": <$.attributes.SenderId>, "greeting": "Hello, <$.attributes.SenderId>", "pipe": <aws.pipes.pipe-name>, "at": "<aws.pipes.event.ingestion-time>", "missing": <$.body.nothing>}',
    );

    // Act
    const output = template.evaluate(record('{"a": 1}'), context);

    // Assess
    expect(JSON.parse(output)).toEqual({
      sender: 'AIDAEXAMPLE',
      greeting: 'Hello, AIDAEXAMPLE',
      pipe: 'example',
      at: context.ingestionTime,
      missing: null,
    });
  });

  it('leaves a body that is not JSON as text, and reads free text templates as text', () => {
    // Act
    const output = compileInputTemplate('Body is <$.body>').evaluate(record('plain words'), context);

    // Assess
    expect(output).toBe('Body is plain words');
  });

  it('refuses a variable that is neither a JSON path nor a reserved variable, and a wildcard path', () => {
    // Act / Assess
    expect(() => compileInputTemplate('{"x": <aws.pipes.nothing>}')).toThrow(/not a reserved variable/);
    expect(() => compileInputTemplate('{"x": <$.body.items[*]>}')).toThrow(/wildcards/);
  });

  it('reads dynamic path parameters from the original event, inside the parsed body', () => {
    // Prepare
    const event = record(JSON.stringify({ id: 'e-1', detail: { accountId: 'acct-7' } }));

    // Act / Assess
    expect(dynamicParameter('$.body.detail.accountId')(event)).toBe('acct-7');
    expect(dynamicParameter('$.body.id')(event)).toBe('e-1');
    expect(dynamicParameter('$.body.detail.missing')(event)).toBeUndefined();
  });
});
