// Reads the import graph of a source tree and checks it against the layers drawn in docs/architecture.md: what the
// architecture test runs on src/, and on broken copies to prove that each check can fail.
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
  /**
   * Where a module may import below its own layer, when not everywhere: keyed by a module or a layer (for each of its
   * modules), each a list of layers and modules. A surface that may reach only the operations and the contract may
   * not skip past them to the services and adapters.
   */
  reach: [string, string[]][];
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

/**
 * The `layers` block of docs/architecture.md: `name: module module…` lines, `a -> b` sideways arrows, and
 * `a => layer module…` reach rules.
 */
export function parseLayering(markdown: string): Layering {
  const block = /```layers\n([\s\S]*?)```/.exec(markdown);
  if (!block) throw new Error('docs/architecture.md has no ```layers block');
  const layering: Layering = { layers: [], sideways: [], reach: [] };
  for (const raw of block[1]!.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const reach = /^(\S+)\s*=>\s*(.+)$/.exec(line);
    if (reach) {
      layering.reach.push([reach[1]!, reach[2]!.split(/[\s,]+/).filter(Boolean)]);
      continue;
    }
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

/**
 * What breaks the drawing: imports that go up, sideways without an arrow, or past a module's reach; modules not drawn;
 * runtime import cycles between files; cycles between modules (through arrows or imports); arrows no import uses.
 */
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
  const reach = reachOf(layering, problems);
  const sideways = new Set(layering.sideways.map(([a, b]) => `${a} -> ${b}`));
  const edges = readImports(srcDir);
  const used = new Set<string>();
  for (const edge of edges) {
    const from = moduleOf(edge.from);
    const to = moduleOf(edge.to);
    if (from === to) continue;
    used.add(`${from} -> ${to}`);
    const a = rank.get(from);
    const b = rank.get(to);
    if (a === undefined || b === undefined) continue;
    if (b > a) {
      const allowed = reach.get(from);
      if (allowed && !allowed.modules.has(to))
        problems.push(`${edge.from} imports ${edge.to}: ${from} may not skip to ${to} (${allowed.rule})`);
      continue;
    }
    if (b === a && sideways.has(`${from} -> ${to}`)) continue;
    problems.push(`${edge.from} imports ${edge.to}: ${from} may not import ${to}`);
  }
  for (const arrow of sideways) {
    if (!used.has(arrow)) problems.push(`docs/architecture.md draws ${arrow}, which no import uses`);
  }
  problems.push(...findCycles(edges.filter((e) => e.runtime && !e.dynamic)));
  const imported = [...used].map((arrow) => arrow.split(' -> ') as [string, string]);
  problems.push(...findModuleCycles([...layering.sideways, ...imported]));
  return problems;
}

/** Each module's reach, from the rule that names it, else the one that names its layer; with the rule as drawn. */
function reachOf(layering: Layering, problems: string[]): Map<string, { modules: Set<string>; rule: string }> {
  const layerOf = new Map(layering.layers.map((layer) => [layer.name, layer.modules]));
  const known = (name: string) => layerOf.has(name) || layering.layers.some((l) => l.modules.includes(name));
  const reach = new Map<string, { modules: Set<string>; rule: string }>();
  const rules = [...layering.reach].sort(([a], [b]) => Number(layerOf.has(b)) - Number(layerOf.has(a)));
  for (const [subject, targets] of rules) {
    for (const name of [subject, ...targets]) {
      if (!known(name))
        problems.push(`docs/architecture.md: the reach of ${subject} names ${name}, which is not drawn`);
    }
    const modules = new Set(targets.flatMap((name) => layerOf.get(name) ?? [name]));
    const rule = `drawn: ${subject} => ${targets.join(' ')}`;
    for (const module of layerOf.get(subject) ?? [subject]) reach.set(module, { modules, rule });
  }
  return reach;
}

/**
 * Cycles between modules (folders and root files) through the arrows drawn and the imports made, type-only and late
 * ones included: a cycle of folders is a tangle even when no file-level runtime cycle closes it. One path per cycle.
 */
function findModuleCycles(edges: [string, string][]): string[] {
  const next = new Map<string, string[]>();
  for (const [from, to] of edges) next.set(from, [...new Set([...(next.get(from) ?? []), to])]);
  return stronglyConnected(next).map((component) => `folder cycle: ${cycleThrough(component, next).join(' -> ')}`);
}

/** The shortest cycle from the first member (by name) of a strongly connected component back to it. */
function cycleThrough(component: string[], next: Map<string, string[]>): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of next.get(node) ?? []) {
      if (target === start) {
        const path: string[] = [];
        for (let at = node; at !== start; at = previous.get(at)!) path.unshift(at);
        return [start, ...path, start];
      }
      if (!members.has(target) || previous.has(target)) continue;
      previous.set(target, node);
      queue.push(target);
    }
  }
  throw new Error(`no cycle through ${start}: not a strongly connected component`);
}

/** Runtime import cycles between files. */
function findCycles(edges: Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  return stronglyConnected(next).map((component) => `runtime import cycle: ${component.join(' -> ')}`);
}

/** The strongly connected components of more than one node (Tarjan's algorithm), each in the order it was entered. */
function stronglyConnected(next: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
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
    if (component.length > 1) components.push(component.reverse());
  };
  for (const node of next.keys()) if (!index.has(node)) connect(node);
  return components;
}
