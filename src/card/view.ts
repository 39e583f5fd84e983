/** The card's DOM: rebuilt from the state on each change, except question forms, kept while their question is pending. */
import { el } from './dom';
import { type Answer, questionForm } from './schema-form';
import { type CardState, isRunning } from './task-state';

export interface ViewActions {
  notice: string;
  workflowUrl?: string;
  answer(key: string, a: Answer): void;
  cancel(): void;
  openLink(url: string): void;
}

/** Forms by question key: a re-render keeps the one the user is filling in. */
const forms = new Map<string, HTMLElement>();

export function render(root: HTMLElement, state: CardState, actions: ViewActions): void {
  root.dataset.status = state.status;
  const header = el(
    'header',
    {},
    el('span', { className: 'tool', textContent: state.tool ?? 'task' }),
    el('span', { className: `status ${state.status}`, textContent: state.status }),
  );
  const parts: Node[] = [header];
  if (state.progress) parts.push(progressBar(state.progress));
  if (state.statusMessage) parts.push(el('p', { className: 'status-message', textContent: state.statusMessage }));
  parts.push(...questions(state, actions));
  if (state.result) {
    const data = state.result.data === undefined ? '' : `\n\n${JSON.stringify(state.result.data, null, 2)}`;
    parts.push(el('pre', { className: `result${state.result.isError ? ' error' : ''}`, textContent: `${state.result.text}${data}` }));
  }
  const footer = el('footer');
  if (isRunning(state) && state.taskId && state.status !== 'cancelling') {
    const cancel = el('button', { type: 'button', className: 'cancel', textContent: 'Cancel task' });
    cancel.addEventListener('click', () => actions.cancel());
    footer.append(cancel);
  }
  if (actions.workflowUrl && state.taskId)
    footer.append(temporalLink(`${actions.workflowUrl}${encodeURIComponent(state.taskId)}`, actions));
  parts.push(footer);
  if (state.taskId) parts.push(el('code', { className: 'task-id', textContent: state.taskId }));
  if (actions.notice) parts.push(el('p', { className: 'notice', textContent: actions.notice }));
  root.replaceChildren(...parts);
}

function progressBar({ done, total }: NonNullable<CardState['progress']>): HTMLElement {
  // without a total the bar is indeterminate (moving), the count beside it
  const bar = el('progress', total ? { max: total, value: done } : {});
  bar.id = 'progress';
  const label = total ? `${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}` : done.toLocaleString('en-US');
  return el('div', { className: 'progress' }, bar, el('span', { textContent: label }));
}

function questions(state: CardState, actions: ViewActions): HTMLElement[] {
  const pending = new Set(state.questions.map((q) => q.key));
  for (const key of forms.keys()) if (!pending.has(key)) forms.delete(key);
  return state.questions.map((q) => {
    const form = forms.get(q.key) ?? questionForm(q, (a) => actions.answer(q.key, a));
    forms.set(q.key, form);
    return form;
  });
}

/** The sandbox has no navigation of its own: the host opens the link. */
function temporalLink(url: string, actions: ViewActions): HTMLElement {
  const link = el('a', { href: url, className: 'temporal', textContent: 'Open in Temporal UI', target: '_blank', rel: 'noopener' });
  link.addEventListener('click', (event) => {
    event.preventDefault();
    actions.openLink(url);
  });
  return link;
}
