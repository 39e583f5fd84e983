import * as z from 'zod';
import { parseSettings } from '../mcp/config';
import { LOG_LEVELS } from '../tasks';

/**
 * The CLI's own settings (not the server's, not the worker's tuning): through the same
 * flag/environment merge, so a flag wins, an empty variable is unset and a bad value is refused
 * with its flag and variable named.
 */
/** Blank (only spaces) reads as unset. */
const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((value) => value || undefined);

export const CliSettingsSchema = z.object({
  logLevel: z.enum(LOG_LEVELS).default('info'),
  /** V8's heap may grow this far (percent) past the live objects of its last full collection; 0: V8 decides. */
  heapGrowthPercent: z.coerce.number().int().min(0).max(1_000).default(30),
  /** The largest semi-space (MB) of V8's young generation in a worker's workflow threads; 0: V8 decides (16). */
  workflowSemiSpaceMb: z.coerce.number().int().min(0).max(256).default(4),
  /** JSON tools file: workflows of any SDK, started by type name. */
  tools: z.string().min(1).optional(),
  toolsModule: z.string().min(1).optional(),
  /** "principal:token,..." (from the environment only: a token on the command line is visible to `ps`). */
  authTokens: z.string().min(1).optional(),
  buildId: optionalText,
  deploymentName: optionalText,
  versioningBehavior: z.enum(['PINNED', 'AUTO_UPGRADE']).default('PINNED'),
  setCurrent: z.boolean().default(false),
});
export type CliSettings = z.infer<typeof CliSettingsSchema>;

export const CLI_ENV_VARS: Record<keyof CliSettings, string> = {
  logLevel: 'MCP_LOG_LEVEL',
  heapGrowthPercent: 'MCP_HEAP_GROWTH_PERCENT',
  workflowSemiSpaceMb: 'MCP_WORKFLOW_SEMI_SPACE_MB',
  tools: 'MCP_TOOLS_FILE',
  toolsModule: 'MCP_TOOLS_MODULE',
  authTokens: 'MCP_AUTH_TOKENS',
  buildId: 'MCP_BUILD_ID',
  deploymentName: 'MCP_DEPLOYMENT_NAME',
  versioningBehavior: 'MCP_VERSIONING_BEHAVIOR',
  setCurrent: 'MCP_SET_CURRENT_VERSION',
};

/** Commander's parsed options (only the ones above are read; the rest belong to other settings). */
export function parseCliSettings(opts: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): CliSettings {
  const spec = { schema: CliSettingsSchema, envVars: CLI_ENV_VARS, booleans: new Set(['setCurrent']), title: 'Invalid configuration' };
  return parseSettings(spec, { ...opts, authTokens: undefined }, env);
}
