/** A pending question as a form generated from its flat JSON Schema, with submit and decline. */
import { el } from './dom';
import { type FieldSchema, fieldValue, type Question } from './task-state';

export type Answer = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' };

/** The form of one question; `answer` runs on submit (its content) or decline. */
export function questionForm(q: Question, answer: (a: Answer) => void): HTMLElement {
  const form = el('form', { className: 'question' });
  form.dataset.key = q.key;
  form.append(el('p', { className: 'message', textContent: q.message }));
  if (!q.fields) return form;
  const inputs = Object.entries(q.fields).map(([name, schema]) => {
    const input = inputFor(schema);
    input.name = name;
    input.required = q.required.includes(name) && schema.type !== 'boolean';
    const label = el('label', { textContent: schema.title ?? name }, input);
    if (schema.description) label.title = schema.description;
    form.append(label);
    return { name, schema, input };
  });
  const error = el('p', { className: 'error' });
  // buttons, not a form submission: a sandbox without allow-forms never fires `submit`
  const submit = el('button', { type: 'button', textContent: 'Submit', className: 'submit' });
  const decline = el('button', { type: 'button', textContent: 'Decline', className: 'decline' });
  decline.addEventListener('click', () => answer({ action: 'decline' }));
  submit.addEventListener('click', () => {
    const content: Record<string, unknown> = {};
    for (const { name, schema, input } of inputs) {
      const raw = input instanceof HTMLInputElement && input.type === 'checkbox' ? input.checked : input.value;
      const read = fieldValue(schema, raw);
      if (read.error) return void (error.textContent = `${schema.title ?? name}: ${read.error}`);
      if (read.value === undefined && input.required) return void (error.textContent = `${schema.title ?? name}: an answer is needed`);
      if (read.value !== undefined) content[name] = read.value;
    }
    error.textContent = '';
    answer({ action: 'accept', content });
  });
  form.append(error, el('div', { className: 'actions' }, submit, decline));
  return form;
}

function inputFor(schema: FieldSchema): HTMLInputElement | HTMLSelectElement {
  if (schema.enum) {
    const select = document.createElement('select');
    for (const v of ['', ...schema.enum.map(String)]) select.append(el('option', { value: v, textContent: v || '—' }));
    if (schema.default !== undefined) select.value = String(schema.default);
    return select;
  }
  const input = document.createElement('input');
  if (schema.type === 'boolean') {
    input.type = 'checkbox';
    input.checked = schema.default === true;
    return input;
  }
  const numeric = schema.type === 'number' || schema.type === 'integer';
  input.type = numeric ? 'number' : 'text';
  if (numeric) input.step = schema.type === 'integer' ? '1' : 'any';
  if (schema.default !== undefined) input.value = String(schema.default);
  return input;
}
