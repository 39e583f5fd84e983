/** Answers to input requests checked against what was asked. */
import { UncompilableSchemaError, whyResponseDoesNotFit } from '../../../src/tasks/input-responses';

test('a form schema this server cannot compile is told apart (the store passes the answer unchecked, naming the key)', () => {
  const request = {
    method: 'elicitation/create',
    params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } },
  } as never;
  expect(() => whyResponseDoesNotFit(request, { action: 'accept', content: { a: 1 } })).toThrow(UncompilableSchemaError);
  expect(whyResponseDoesNotFit(request, { action: 'decline' })).toBeUndefined(); // nothing to check
});
