/**
 * Every tool's workflow, exported under the tool's name: the export name is the Temporal
 * workflow type, so the Temporal UI shows each task under its tool.
 */
import { toolWorkflow } from './task-runtime';
import { approveExpense } from './approve-expense';
import { collectApprovals } from './collect-approvals';
import { exportReport } from './export-report';
import { provisionEnvironment } from './provision-environment';
import { waitAndEcho } from './wait-and-echo';

export const wait_and_echo = toolWorkflow(waitAndEcho);
export const approve_expense = toolWorkflow(approveExpense);
export const provision_environment = toolWorkflow(provisionEnvironment);
export const collect_approvals = toolWorkflow(collectApprovals);
export const export_report = toolWorkflow(exportReport);
export * from './conformance-fixtures';
