/**
 * The demo's tool arguments, the contract both sides import (as in Temporal's samples, e.g.
 * nexus-hello/src/api.ts): tools.ts gives them to the server as input schemas, workflows.ts
 * takes their inferred types (type-only), so neither imports the other's module for them.
 */
import * as z from 'zod';

export const waitAndEchoInput = z.object({
  text: z.string().max(100_000).describe('The text to return'),
  seconds: z.number().min(0).max(86_400).describe('How long to wait, 0..86400'),
});

export const approveExpenseInput = z.object({
  amount: z.number().positive().describe('Amount, greater than 0'),
  description: z.string().min(1).max(10_000).describe('What the expense is for'),
});

export const provisionEnvironmentInput = z.object({
  name: z.string().min(1).max(200).describe('Environment name'),
  steps: z.number().int().min(1).max(50).optional().describe('Number of steps (default 3)'),
  stepMs: z.number().int().min(0).max(600_000).optional().describe('Duration of one step in ms (default 1000)'),
});

export const collectApprovalsInput = z.object({
  approvers: z.array(z.string().min(1).max(200)).min(1).max(1000).describe('Approvers, asked in this order'),
});

export const exportReportInput = z.object({
  rows: z.number().int().min(1).max(1_000_000).describe('Number of rows'),
  msPerChunk: z
    .number()
    .int()
    .min(0)
    .max(60_000)
    .optional()
    .describe('Simulated time per 1,000 rows in ms (default 0), to watch the progress'),
});
