// Reads the import graph of a source tree and checks it against the layers drawn in docs/architecture.md: what the
// architecture test runs on src/, and on a copy with a forbidden import to prove that it can fail.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface Edge {
  from: string;
  to: string;
  /** Type-only imports vanish at run time: they count for layering, not for cycles. */
  runtime: boolean;
  /** import() at run time: a deliberate late load, which cannot close a cycle at start-up. */
  dynamic: boolean;
}

export interface Layering {
  /** Layers from the top (entry) to the bottom (kernel), each a list of modules: folders, or files at the root. */
  layers: { name: string; modules: string[] }[];
  /** Imports allowed between two modules of the same layer. */
  sideways: [string, string][];
}

function sourceFiles(root: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Every relative import of every .ts file under `srcDir`, as paths relative to it. */
export function readImports(srcDir: string): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(srcDir)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const add = (specifier: string, runtime: boolean, dynamic: boolean) => {
      if (!specifier.startsWith('.')) return;
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      edges.push({ from: relative(srcDir, file), to: relative(srcDir, target), runtime, dynamic });
    };
    const visit = (node: ts.Node) => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        const typeOnly =
          clause !== undefined &&
          (clause.isTypeOnly ||
            (clause.name === undefined &&
              clause.namedBindings !== undefined &&
              ts.isNamedImports(clause.namedBindings) &&
              clause.namedBindings.elements.length > 0 &&
              clause.namedBindings.elements.every((e) => e.isTypeOnly)));
        add(node.moduleSpecifier.text, !typeOnly, false);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        add(node.moduleSpecifier.text, !node.isTypeOnly, false);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] !== undefined &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        add(node.arguments[0].text, true, true);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

/** The module of a file: its top folder under src/, or the file itself at the root. */
export function moduleOf(path: string): string {
  return path.split('/')[0]!;
}

/** The `layers` block of docs/architecture.md: `name: module module…` lines, then `a -> b` sideways arrows. */
export function parseLayering(markdown: string): Layering {
  const block = /```layers\n([\s\S]*?)```/.exec(markdown);
  if (!block) throw new Error('docs/architecture.md has no ```layers block');
  const layering: Layering = { layers: [], sideways: [] };
  for (const raw of block[1]!.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const arrow = /^(\S+)\s*->\s*(.+)$/.exec(line);
    if (arrow) {
      for (const to of arrow[2]!.split(/[\s,]+/).filter(Boolean)) layering.sideways.push([arrow[1]!, to]);
      continue;
    }
    const layer = /^([\w-]+):\s*(.*)$/.exec(line);
    if (!layer) throw new Error(`cannot read this line of the layers block: ${raw}`);
    layering.layers.push({ name: layer[1]!, modules: layer[2]!.split(/\s+/).filter(Boolean) });
  }
  return layering;
}

/** What breaks the drawing: imports that go up or sideways without an arrow, modules not drawn, runtime cycles. */
export function checkLayering(srcDir: string, layering: Layering): string[] {
  const problems: string[] = [];
  const rank = new Map<string, number>();
  layering.layers.forEach((layer, index) => layer.modules.forEach((m) => rank.set(m, index)));
  const present = new Set(readdirSync(srcDir).map((name) => name));
  for (const name of present) {
    if (!rank.has(name)) problems.push(`src/${name} exists but is not drawn in docs/architecture.md`);
  }
  for (const name of rank.keys()) {
    if (!present.has(name)) problems.push(`docs/architecture.md draws ${name}, which does not exist under src/`);
  }
  const sideways = new Set(layering.sideways.map(([a, b]) => `${a} -> ${b}`));
  const edges = readImports(srcDir);
  for (const edge of edges) {
    const from = moduleOf(edge.from);
    const to = moduleOf(edge.to);
    if (from === to) continue;
    const a = rank.get(from);
    const b = rank.get(to);
    if (a === undefined || b === undefined) continue;
    if (b > a) continue;
    if (b === a && sideways.has(`${from} -> ${to}`)) continue;
    problems.push(`${edge.from} imports ${edge.to}: ${from} may not import ${to}`);
  }
  problems.push(...findCycles(edges.filter((e) => e.runtime && !e.dynamic)));
  return problems;
}

/** Runtime import cycles between files (Tarjan's strongly connected components). */
function findCycles(edges: Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];
  let counter = 0;
  const connect = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(`runtime import cycle: ${component.reverse().join(' -> ')}`);
  };
  for (const node of next.keys()) if (!index.has(node)) connect(node);
  return cycles;
}
