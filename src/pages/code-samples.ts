// A recorded request written out as the copy-paste code the example pages show: curl, and Python with requests.
import type { RecordedStep } from './examples/outputs.js';

const KEY_HEADER = 'X-Service-Key: fd_live_YOUR_KEY';

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export function curlOf(step: RecordedStep, base: string): string {
  const lines = [
    `curl -s ${step.method === 'GET' ? '' : `-X ${step.method} `}${base}${step.path}`,
    `-H ${shellQuote(KEY_HEADER)}`,
  ];
  for (const [name, value] of Object.entries(step.headers)) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (step.body !== null)
    lines.push(`-H 'content-type: application/json'`, `-d ${shellQuote(JSON.stringify(step.body))}`);
  return lines.join(' \\\n  ');
}

/** Python literals from JSON: the same text except for true/false/null. */
function pythonLiteral(value: unknown, indent = ''): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (Array.isArray(value)) return `[${value.map((v) => pythonLiteral(v, indent)).join(', ')}]`;
  if (typeof value === 'object') {
    const inner = `${indent}    `;
    const entries = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `${inner}${JSON.stringify(k)}: ${pythonLiteral(v, inner)},`,
    );
    return `{\n${entries.join('\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

export function pythonOf(step: RecordedStep, base: string): string {
  const headers = { 'X-Service-Key': 'fd_live_YOUR_KEY', ...step.headers };
  const call = step.method === 'GET' ? 'requests.get' : 'requests.post';
  const args = [`"${base}${step.path}"`, `headers=${pythonLiteral(headers, '    ')}`];
  if (step.body !== null) args.push(`json=${pythonLiteral(step.body, '    ')}`);
  return `import requests\n\nresponse = ${call}(\n    ${args.join(',\n    ')},\n    timeout=60,\n)\nprint(response.json())`;
}
