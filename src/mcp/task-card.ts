/**
 * The task card (issue 34): an MCP Apps UI resource (`text/html;profile=mcp-app`) that hosts
 * rendering MCP Apps show beside a task handle: status, progress, its questions as forms, cancel,
 * the result. The page is built by scripts/bundle-card.js from src/card/; the server serves it
 * with its own settings written in (the task tools' names, the Temporal UI's workflow address),
 * and names it in the `_meta.ui` of the tools whose results it can show.
 */
import type { McpServer, ReadResourceResult } from '@modelcontextprotocol/server';
import fs from 'node:fs';
import path from 'node:path';
// ext-apps is ESM-only: its types here, its constants checked against their literal types
import type {
  McpUiAppResourceConfig,
  McpUiAppToolConfig,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from '@modelcontextprotocol/ext-apps/server' with { 'resolution-mode': 'import' };
import type { ServerConfig } from './config';
import type { TaskToolNames } from './task-handles/handle-text';

export const TASK_CARD_URI = 'ui://mcp-temporal-tasks/task-card';
const MIME_TYPE: typeof RESOURCE_MIME_TYPE = 'text/html;profile=mcp-app';
/** The key older hosts read (ext-apps' registerAppTool sets both it and `ui.resourceUri`). */
const LEGACY_URI_KEY: typeof RESOURCE_URI_META_KEY = 'ui/resourceUri';

/** Built by `npm run build`; the same place from src/ (tests) and dist/ (the package). */
export const CARD_FILE = path.resolve(__dirname, '..', '..', 'dist', 'card', 'task-card.html');

export class CardNotBuiltError extends Error {
  constructor(file: string) {
    super(`the task card is not built (${file} is missing): run npm run build`);
  }
}

/** What the page reads from its config block (src/card/card.ts: CardConfig). */
interface CardConfig {
  wait: string;
  respond: string;
  cancel: string;
  workflowUrl?: string;
}

export class TaskCard {
  private html?: string;

  constructor(
    private readonly config: Pick<ServerConfig, 'temporalUiUrl'>,
    private readonly names: TaskToolNames,
    private readonly namespace: string,
    private readonly file = CARD_FILE,
  ) {}

  /** The `_meta` of a tool whose results the card shows. */
  toolMeta(): McpUiAppToolConfig['_meta'] {
    return { ui: { resourceUri: TASK_CARD_URI }, [LEGACY_URI_KEY]: TASK_CARD_URI };
  }

  register(server: McpServer): void {
    const meta: McpUiAppResourceConfig['_meta'] = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: false } };
    server.registerResource(
      'task-card',
      TASK_CARD_URI,
      {
        title: 'Task card',
        description: 'A live view of a task: status, progress, questions, cancel, result',
        mimeType: MIME_TYPE,
        _meta: meta,
      },
      () => this.read(meta),
    );
  }

  read(meta?: McpUiAppResourceConfig['_meta']): ReadResourceResult {
    return { contents: [{ uri: TASK_CARD_URI, mimeType: MIME_TYPE, text: this.page(), ...(meta ? { _meta: meta } : {}) }] };
  }

  /** The built page with this server's settings in its config block (escaped: JSON inside a script element). */
  page(): string {
    if (this.html === undefined) {
      if (!fs.existsSync(this.file)) throw new CardNotBuiltError(this.file);
      const settings: CardConfig = { wait: this.names.wait, respond: this.names.respond, cancel: this.names.cancel };
      const ui = this.config.temporalUiUrl?.replace(/\/+$/, '');
      if (ui) settings.workflowUrl = `${ui}/namespaces/${encodeURIComponent(this.namespace)}/workflows/`;
      const json = JSON.stringify(settings).replace(/</g, '\\u003c');
      this.html = fs.readFileSync(this.file, 'utf8').replace('__CARD_CONFIG__', () => json);
    }
    return this.html;
  }
}
