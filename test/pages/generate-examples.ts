// `npm run examples`: records every worked example's requests and answers into src/pages/examples/outputs.json.
import { writeFileSync } from 'node:fs';
import { OUTPUTS_FILE } from '../../src/pages/examples/outputs.js';
import { CHROMIUM_PATH } from '../fetchers/chromium.js';
import { runExamples } from './example-runner.js';

const outputs = await runExamples({ chromiumPath: CHROMIUM_PATH });
writeFileSync(OUTPUTS_FILE, `${JSON.stringify(outputs, null, 2)}\n`);
process.stdout.write(`wrote ${Object.keys(outputs).length} examples to ${OUTPUTS_FILE.pathname}\n`);
