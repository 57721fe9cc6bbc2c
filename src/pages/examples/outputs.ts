// The recorded answers of the worked examples (outputs.json, written by `npm run examples`), typed for the pages.
import { readFileSync } from 'node:fs';

export interface RecordedStep {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  status: number;
  response: unknown;
}

export type ExampleOutputs = Record<string, { steps: RecordedStep[] }>;

export const OUTPUTS_FILE = new URL('./outputs.json', import.meta.url);

export function loadOutputs(): ExampleOutputs {
  return JSON.parse(readFileSync(OUTPUTS_FILE, 'utf8')) as ExampleOutputs;
}
