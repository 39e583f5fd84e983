/** The invoice tool's arguments: tools.ts validates with it, workflows.ts takes its type (docs/writing-tools.md). */
import * as z from 'zod';

export const sendInvoiceInput = z.object({ customer: z.string().min(1), amount: z.number().positive() });
