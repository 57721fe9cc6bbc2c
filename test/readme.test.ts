// The README, replayed as a reader would type it (issue 32): every command in its ```sh blocks is classified below,
// and each one that can run offline runs as written, in order, in a copy of this checkout (its node_modules linked; a
// copy so that `npm start`'s build cannot empty dist/ under the tests running beside this one). Servers start on free
// ports: 8080 and 8000 in the commands and their documented answers become those ports, and the servers get PORT.
// A command's documented answer (the `# …` lines after it) is checked: each `"key": value` it shows appears in the JSON
// answer (a string ending in … as a prefix), or each line's text, cut at …, in a text answer. The MCP set-up's ```json
// snippets start their server as written, with the checkout's path for /absolute/path/to/fetchdown, and list the tools.
// A command no rule classifies fails the test: a new README command has to be placed in RUN or SKIP.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TOOLS } from '../src/contract/tools.js';
import { REPO_ROOT } from './helpers/mcp-client.js';

type Action =
  | { kind: 'skip'; reason: string }
  /** Runs to its end: exit code 0, and the documented answer. */
  | { kind: 'run' }
  /** A Fetchdown server: it answers /health with {"status":"ok"}; the next one replaces it after a Ctrl-C. */
  | { kind: 'serve' }
  /** A command sent to the background with &: a local page server. */
  | { kind: 'background' }
  /** The MCP server on stdio: the SDK client lists its tools. */
  | { kind: 'mcp' };

const skip = (reason: string): Action => ({ kind: 'skip', reason });
/** Every README command, classified by its text (first match wins). */
const RULES: [RegExp, Action][] = [
  [/^git clone https:\/\/github\.com\//, skip('clones from GitHub: the replay runs in a copy of this checkout')],
  [/^npm ci$/, skip('.ci/run runs it, then npm test (checked below)')],
  [/^npm test$/, skip('it runs this replay: .ci/run ends with it (checked below)')],
  [/^claude mcp add /, skip('needs Claude Code, and configures it rather than running Fetchdown')],
  [
    /^npx -y \.\/fetchdown-[\w.-]+\.tgz /,
    skip('installs from the registry; test/packaging installs the same tarball offline (its file is checked below)'),
  ],
  [/https?:\/\/(?!(?:127\.0\.0\.1|localhost)[:/])/, skip('needs the internet')],
  [/^npm run package$/, { kind: 'run' }],
  [/^(?:[A-Z_]+=\S* )*npm start$/, { kind: 'serve' }],
  [/^node bin\/fetchdown\.mjs serve$/, { kind: 'serve' }],
  [/^node bin\/fetchdown\.mjs mcp$/, { kind: 'mcp' }],
  [/^node -e ".*" &$/s, { kind: 'background' }],
  [/^curl -s /, { kind: 'run' }],
];

interface Command {
  /** As written, its trailing comment removed (lines joined by \ or an open quote kept). */
  text: string;
  /** On one line, for the rules. */
  line: string;
  /** The `# …` lines after it: what the README says it answers. */
  answer: string[];
}

/** The fenced blocks of a Markdown document. */
function fencedBlocks(markdown: string): { lang: string; body: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

/** A block's commands, as a shell splits them into lines: quotes and backslash-newlines continue a command. */
function commandsOf(body: string): Command[] {
  const commands: Command[] = [];
  let text = '';
  let quote: string | null = null;
  for (const raw of body.split('\n')) {
    if (!text && /^\s*#/.test(raw)) {
      commands.at(-1)?.answer.push(raw.replace(/^\s*# ?/, ''));
      continue;
    }
    if (!text && !raw.trim()) continue;
    let line = '';
    for (let i = 0; i < raw.length; i++) {
      const c = raw[i]!;
      if (quote) {
        if (c === quote) quote = null;
        else if (c === '\\' && quote === '"' && i + 1 < raw.length) {
          line += c + raw[++i]!;
          continue;
        }
      } else if (c === "'" || c === '"') quote = c;
      else if (c === '#' && (i === 0 || /\s/.test(raw[i - 1]!))) break; // a comment
      line += c;
    }
    text += (text ? '\n' : '') + line.trimEnd();
    if (quote || text.endsWith('\\')) continue;
    commands.push({ text, line: text.replace(/\\\n\s*/g, ' ').replace(/\n\s*/g, ' '), answer: [] });
    text = '';
  }
  assert.equal(text, '', `an unfinished command: ${text}`);
  return commands;
}

const classify = (command: Command) => RULES.find(([pattern]) => pattern.test(command.line))?.[1];

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const blocks = fencedBlocks(readme);
const shellCommands = blocks.filter((b) => b.lang === 'sh').flatMap((b) => commandsOf(b.body));
const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

test('every command in the README is classified: run here, or skipped for a stated reason', () => {
  assert.ok(shellCommands.length > 10, `${shellCommands.length} commands`);
  const unclassified = shellCommands.filter((command) => !classify(command)).map((command) => command.line);
  assert.deepEqual(unclassified, [], 'README commands no rule in test/readme.test.ts classifies');
  // The skipped ones are what .ci/run does around the tests.
  const ci = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8')
    .trim()
    .split('\n');
  assert.ok(shellCommands.some((c) => c.line === 'npm test') && ci.at(-1) === 'npm test', 'the README test command');
  assert.ok(
    ci.some((line) => /^npm ci\b/.test(line)),
    '.ci/run installs with npm ci, as the README does',
  );
});

// The replay's world: a copy of the checkout, free ports for 8080 and 8000, the processes it started.
const work = mkdtempSync(join(tmpdir(), 'fetchdown-readme-'));
const checkout = join(work, 'fetchdown');
const LEFT_OUT = new Set(['.git', 'node_modules', 'dist', 'dist-npm', 'data', '.bench-tmp', 'screenshots', 'coverage']);
cpSync(REPO_ROOT, checkout, {
  recursive: true,
  filter: (path) => {
    const top = path.slice(REPO_ROOT.length + 1).split('/')[0]!;
    return !LEFT_OUT.has(top) && !/^fetchdown-.*\.tgz$/.test(top);
  },
});
symlinkSync(join(REPO_ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir');
const ports = { api: await freePort(), page: await freePort() };
/** A reader's shell, with a home of its own (the per-user data directory, npm's logs) and PORT for 8080. */
const env = { PATH: process.env.PATH ?? '', HOME: join(work, 'home'), LANG: 'C.UTF-8', PORT: String(ports.api) };
const onOurPorts = (text: string) =>
  text.replace(/\b8080\b/g, String(ports.api)).replace(/\b8000\b/g, String(ports.page));
const running: ChildProcess[] = [];
after(() => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) kill(child, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** The command in its own process group, as a terminal runs it (Ctrl-C signals the group). */
function start(text: string): { child: ChildProcess; output: () => string } {
  const child = spawn('bash', ['-c', text], { cwd: checkout, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return { child, output: () => output };
}

function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** Polls `url` until `accept` takes the answer, failing with the process's output if it exits or 180 s pass. */
async function waitFor(url: string, accept: (status: number, body: string) => boolean, proc: ReturnType<typeof start>) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    assert.equal(proc.child.exitCode ?? proc.child.signalCode, null, `it exited:\n${proc.output()}`);
    try {
      const res = await fetch(url);
      const body = await res.text();
      if (accept(res.status, body)) return body;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.fail(`no answer from ${url} in 180 s:\n${proc.output()}`);
}

/** Ctrl-C, as the README says: the server finishes what is in flight and exits. */
async function stop(proc: ReturnType<typeof start>): Promise<void> {
  const exited = once(proc.child, 'exit');
  kill(proc.child, 'SIGINT');
  const timer = setTimeout(() => kill(proc.child, 'SIGKILL'), 30_000);
  const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  assert.ok(code === 0 || signal === 'SIGINT', `Ctrl-C stops it (exit ${code}, ${signal}):\n${proc.output()}`);
}

/** Every (key, value) of a JSON value, at any depth. */
function* pairs(value: unknown): Generator<[string, unknown]> {
  if (Array.isArray(value)) for (const item of value) yield* pairs(item);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      yield [key, inner];
      yield* pairs(inner);
    }
  }
}

/** Checks an answer against what the README shows for it (see the head of this file). */
function assertAnswers(command: Command, output: string): void {
  const shown = onOurPorts(command.answer.join('\n')).trim();
  if (!shown) return;
  if (!shown.startsWith('{')) {
    let from = 0;
    for (const piece of shown.split(/…|\n/).map((p) => p.trim())) {
      if (!piece) continue;
      const at = output.indexOf(piece, from);
      assert.ok(at >= 0, `${command.line}\nanswers ${JSON.stringify(piece)} (in this order), but gave:\n${output}`);
      from = at + piece.length;
    }
    return;
  }
  const answer = JSON.parse(output) as unknown;
  const all = [...pairs(answer)];
  for (const [, key, raw] of shown.matchAll(/"(\w+)":\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)/g)) {
    const expected = JSON.parse(raw!) as unknown;
    const prefix = typeof expected === 'string' && expected.endsWith('…') ? expected.slice(0, -1) : undefined;
    const found = all.some(
      ([k, v]) => k === key && (prefix === undefined ? v === expected : typeof v === 'string' && v.startsWith(prefix)),
    );
    assert.ok(found, `${command.line}\nanswers "${key}": ${raw}, but gave:\n${output}`);
  }
}

test('the README replayed: its quick start, the local page, its curl examples, the tarball and the MCP server', async (t) => {
  let server: ReturnType<typeof start> | undefined;
  let lastAnswer: unknown;
  const skipped: string[] = [];
  for (const command of shellCommands) {
    const action = classify(command);
    assert.ok(action, `not classified: ${command.line}`);
    // A cursor the README elides ("WzEs…") is the one the previous answer gave, which starts so.
    const text = onOurPorts(command.text).replace(/"cursor": "([^"]*)…"/, (_, start: string) => {
      const cursor = (lastAnswer as { next_cursor?: string } | undefined)?.next_cursor;
      assert.ok(cursor?.startsWith(start), `the previous answer's next_cursor starts with ${start}: ${cursor}`);
      return `"cursor": "${cursor}"`;
    });
    switch (action.kind) {
      case 'skip':
        skipped.push(command.line);
        t.diagnostic(`skipped (${action.reason}): ${command.line}`);
        break;
      case 'serve': {
        if (server) await stop(server);
        server = start(text);
        const health = await waitFor(`http://127.0.0.1:${ports.api}/health`, (s) => s === 200, server);
        assert.deepEqual(JSON.parse(health), { status: 'ok' }, 'curl -s localhost:8080/health');
        break;
      }
      case 'background': {
        const page = start(text.replace(/\s*&$/, ''));
        await waitFor(`http://127.0.0.1:${ports.page}/`, (s) => s === 200, page);
        break;
      }
      case 'mcp': {
        const client = new Client({ name: 'readme-replay', version: '1.0.0' });
        const transport = new StdioClientTransport({
          command: 'bash',
          args: ['-c', text],
          cwd: checkout,
          env,
          stderr: 'pipe',
        });
        await client.connect(transport);
        assert.equal((await client.listTools()).tools.length, TOOLS.length, command.line);
        await client.close();
        break;
      }
      case 'run': {
        const proc = start(text);
        const [code] = (await once(proc.child, 'exit')) as [number | null];
        assert.equal(code, 0, `${command.line}\nexited ${code}:\n${proc.output()}`);
        if (command.line.startsWith('curl ')) {
          const output = proc.output();
          lastAnswer = output.trimStart().startsWith('{') ? (JSON.parse(output) as unknown) : undefined;
          const error = lastAnswer as { code?: string; detail?: string } | undefined;
          assert.ok(!(error?.code && error.detail), `${command.line}\nanswered an error: ${output}`);
          assertAnswers(command, output);
        }
        break;
      }
    }
  }
  assert.ok(server, 'the README starts a server');
  await stop(server);
  // The tarball the skipped npx line installs is the one `npm run package` wrote, by the name the README gives it.
  for (const line of skipped) {
    const tarball = /^npx -y \.\/(fetchdown-[\w.-]+\.tgz) /.exec(line)?.[1];
    if (tarball)
      assert.ok(existsSync(join(checkout, tarball)), `${tarball} (npm run package wrote fetchdown-${version}.tgz)`);
  }
});

test('the MCP set-up snippets start the server as written and it lists its tools', async () => {
  const snippets = blocks.filter((b) => b.lang === 'json').map((b) => JSON.parse(b.body) as unknown);
  const servers = snippets.map((s) => (s as { mcpServers: Record<string, McpServer> }).mcpServers.fetchdown!);
  assert.ok(servers.length >= 2, 'Claude Desktop and Cursor');
  for (const { command, args, env: snippetEnv } of servers) {
    assert.equal(command, 'node', 'a command that works before Fetchdown is on npm');
    const path = args.map((arg) => arg.replace('/absolute/path/to/fetchdown', checkout));
    assert.equal(basename(path[0]!), 'fetchdown.mjs');
    const client = new Client({ name: 'readme-snippet', version: '1.0.0' });
    // A client starts it from a directory of its own, with the snippet's environment.
    await client.connect(new StdioClientTransport({ command, args: path, cwd: work, env: { ...env, ...snippetEnv } }));
    assert.equal((await client.listTools()).tools.length, TOOLS.length, JSON.stringify(snippetEnv));
    await client.close();
  }
});

interface McpServer {
  command: string;
  args: string[];
  env?: Record<string, string>;
}
