import { fromJsonSchema } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { InputRequest } from '../contract';

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
