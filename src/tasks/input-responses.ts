import { fromJsonSchema } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { type InputRequest, MAX_ARGUMENT_BYTES } from '../contract';
import { logger } from './logging';

const ElicitResultSchema = z.object({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.unknown()).optional(),
});

const CreateMessageResultSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.unknown(),
  model: z.string(),
});

const ListRootsResultSchema = z.looseObject({ roots: z.array(z.looseObject({ uri: z.string() })) });

/** The requestedSchema of a pending form cannot be compiled here (see whyResponseDoesNotFit). */
export class UncompilableSchemaError extends Error {}

/** An answer in tasks/update that does not fit the pending request it answers. */
export class InputResponseError extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`inputResponses.${key}: ${reason}`);
  }
}

/**
 * The answers to send: those keyed by an outstanding request, each checked against it. Other
 * keys are dropped, including `constructor`, `toString` or `__proto__` (every object has them,
 * none is outstanding: own keys only). Throws InputResponseError for an answer that does not fit.
 */
export function outstandingAnswers(
  taskId: string,
  pending: Record<string, InputRequest>,
  responses: Record<string, unknown>,
): Record<string, unknown> {
  const answers = Object.fromEntries(Object.entries(responses).filter(([key]) => Object.hasOwn(pending, key)));
  for (const [key, answer] of Object.entries(answers)) {
    const why = checkedAnswer(taskId, key, pending[key], answer);
    if (why) throw new InputResponseError(key, why);
    // a signal is a Temporal payload: past its limit Temporal refuses it, which is the caller's doing, not an outage
    const bytes = Buffer.byteLength(JSON.stringify(answer) ?? '');
    if (bytes > MAX_ARGUMENT_BYTES)
      throw new InputResponseError(key, `the answer is ${bytes} bytes, over the ${MAX_ARGUMENT_BYTES}-byte limit of a Temporal payload`);
  }
  return answers;
}

/** Why an answer does not fit its request; one whose form schema this server cannot compile passes unchecked (warned, naming the key). */
function checkedAnswer(taskId: string, key: string, request: InputRequest, answer: unknown): string | undefined {
  try {
    return whyResponseDoesNotFit(request, answer);
  } catch (err) {
    if (!(err instanceof UncompilableSchemaError)) throw err;
    logger.warn(
      { event: 'task.input.schema_uncompilable', taskId, key, err: err.message },
      `the form schema of input request "${key}" cannot be compiled here: its answer goes to the workflow unchecked`,
    );
    return undefined;
  }
}

/**
 * Checks one tasks/update answer against the request it answers (for a form elicitation:
 * its requestedSchema). Returns why it does not fit, or undefined when it does.
 */
export function whyResponseDoesNotFit(request: InputRequest, response: unknown): string | undefined {
  switch (request.method) {
    case 'elicitation/create': {
      const parsed = ElicitResultSchema.safeParse(response);
      if (!parsed.success) return 'an elicitation answer must be {action: "accept"|"decline"|"cancel", content?}';
      const schema = (request.params as { requestedSchema?: Record<string, unknown> }).requestedSchema;
      if (parsed.data.action !== 'accept' || !schema) return undefined;
      let checked: ReturnType<ReturnType<typeof fromJsonSchema>['~standard']['validate']>;
      try {
        checked = fromJsonSchema(schema as never)['~standard'].validate(parsed.data.content ?? {});
      } catch (err) {
        // a schema published by a workflow of another SDK that this server cannot compile: the
        // answer goes to the workflow unchecked (it checks its own), so the task stays answerable
        throw new UncompilableSchemaError((err as Error).message);
      }
      if (checked instanceof Promise) return undefined; // the SDK's validators are synchronous
      return checked.issues ? `content does not fit the requested schema: ${checked.issues.map((i) => i.message).join('; ')}` : undefined;
    }
    case 'sampling/createMessage':
      return CreateMessageResultSchema.safeParse(response).success ? undefined : 'a sampling answer must be a CreateMessageResult';
    case 'roots/list':
      return ListRootsResultSchema.safeParse(response).success ? undefined : 'a roots answer must be {roots: [{uri}]}';
    default:
      return undefined;
  }
}
