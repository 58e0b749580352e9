import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Who uses each exported name: the export lists of every .ts file of the repository, read with the
 * TypeScript parser (no type checking, so it runs in seconds). A name is used when a file other
 * than the one that declares it imports it, directly or through any chain of `export … from`
 * entries; an entry that only passes a name on is not a user. Read by src/export-usage.test.ts.
 */

/** One exported name at its origin: the file that declares it (repository-relative) and the name. */
export interface ExportOrigin {
  file: string;
  name: string;
}

interface ModuleFacts {
  /** exported name → local name, for names this file declares */
  local: Map<string, string>;
  /** exported name → [module, name there] for `export { a as b } from` */
  named: Map<string, [string, string]>;
  /** modules of `export * from` */
  star: string[];
  /** named imports: [module, imported name] */
  imports: Array<[string, string]>;
  /** modules read whole: `import * as`, `import()`, `typeof import()` */
  whole: string[];
  /** exported name → the text of its signature (parameter, return, member and field types) */
  shape: Map<string, string>;
  /** exported names that are types (interfaces and type aliases) */
  types: Set<string>;
  text: string;
}

const SOURCE_DIRS = ['src', 'perf', 'examples', 'scripts'];

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : walk(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

const hasExport = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/** The types a declaration shows its users: signatures and declared types, not bodies. */
function shapeOf(node: ts.Node, sf: ts.SourceFile): string {
  const text = (n: ts.Node | undefined) => (n ? n.getText(sf) : '');
  const signature = (f: ts.SignatureDeclarationBase) =>
    [...(f.typeParameters ?? []), ...f.parameters, f.type].map(text).join(' ');
  if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return text(node);
  if (ts.isFunctionDeclaration(node)) return signature(node);
  if (ts.isVariableDeclaration(node)) {
    const init = node.initializer;
    const fn = init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) ? signature(init) : '';
    return `${text(node.type)} ${fn}`;
  }
  if (ts.isClassDeclaration(node))
    return [
      ...(node.typeParameters ?? []).map(text),
      ...(node.heritageClauses ?? []).map(text),
      ...node.members.map((m) =>
        ts.isPropertyDeclaration(m) || ts.isPropertySignature(m)
          ? text(m.type)
          : ts.isMethodDeclaration(m) || ts.isConstructorDeclaration(m) || ts.isAccessor(m)
            ? signature(m)
            : '',
      ),
    ].join(' ');
  return '';
}

function factsOf(path: string): ModuleFacts {
  const text = readFileSync(path, 'utf8');
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const facts: ModuleFacts = {
    local: new Map(),
    named: new Map(),
    star: [],
    imports: [],
    whole: [],
    shape: new Map(),
    types: new Set(),
    text,
  };
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const from = st.moduleSpecifier.text;
      const clause = st.importClause;
      if (clause?.name) facts.imports.push([from, 'default']);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) facts.whole.push(from);
      else if (bindings)
        for (const el of bindings.elements) facts.imports.push([from, (el.propertyName ?? el.name).text]);
    } else if (ts.isExportDeclaration(st)) {
      const from =
        st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? st.moduleSpecifier.text : undefined;
      const clause = st.exportClause;
      if (!clause) {
        if (from) facts.star.push(from);
      } else if (ts.isNamespaceExport(clause)) {
        if (from) facts.whole.push(from);
      } else
        for (const el of clause.elements) {
          const inner = (el.propertyName ?? el.name).text;
          if (from) facts.named.set(el.name.text, [from, inner]);
          else facts.local.set(el.name.text, inner);
        }
    } else if (ts.isExportAssignment(st)) facts.local.set('default', 'default');
    else if (hasExport(st)) {
      if (ts.isVariableStatement(st))
        for (const d of st.declarationList.declarations)
          for (const n of bindingNames(d.name)) {
            facts.local.set(n, n);
            facts.shape.set(n, shapeOf(d, sf));
          }
      else if ('name' in st && st.name && ts.isIdentifier(st.name as ts.Node)) {
        const isDefault = (ts.getModifiers(st as ts.HasModifiers) ?? []).some(
          (m) => m.kind === ts.SyntaxKind.DefaultKeyword,
        );
        const n = (st.name as ts.Identifier).text;
        facts.local.set(isDefault ? 'default' : n, n);
        facts.shape.set(n, shapeOf(st, sf));
        if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) facts.types.add(n);
      }
    }
  }
  // dynamic `import('x')` and `typeof import('x')` anywhere in the file
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      facts.whole.push(node.arguments[0].text);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isTemplateExpression(node.arguments[0])
    ) {
      // `import(\`${root}/src/catalog/index.ts\`)` (perf scripts): a file of the repository by its path
      const path = /\/((?:src|perf|examples|scripts)\/[\w./-]+\.ts)$/.exec(
        node.arguments[0].getText(sf).slice(0, -1),
      );
      if (path) facts.whole.push(`/${path[1]}`);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      facts.whole.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return facts;
}

/** The exported names of every file of src, perf, examples and scripts, and who uses them. */
export class ExportUsage {
  private readonly facts = new Map<string, ModuleFacts>();
  private readonly packageEntries: Map<string, string>;
  /** `file\0name` of every export origin some other file uses */
  private readonly used = new Set<string>();

  constructor(repo: string) {
    for (const dir of SOURCE_DIRS) {
      const abs = join(repo, dir);
      if (existsSync(abs)) for (const f of walk(abs)) this.facts.set(relative(repo, f), factsOf(f));
    }
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
      name: string;
      exports: Record<string, { default: string }>;
    };
    this.packageEntries = new Map(
      Object.entries(pkg.exports).map(([sub, target]) => [
        sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`,
        target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'),
      ]),
    );
    for (const [file, facts] of this.facts) {
      for (const [from, name] of facts.imports) {
        const origin = this.resolveModule(file, from);
        const o = origin && this.origin(origin, name, new Set());
        if (o && o.file !== file) this.used.add(`${o.file}\0${o.name}`);
      }
      // a module read whole: its names the file's text mentions
      for (const from of facts.whole) {
        const target = this.resolveModule(file, from);
        if (!target) continue;
        for (const name of this.exportsOf(target, new Set())) {
          if (!new RegExp(`\\b${name}\\b`).test(facts.text)) continue;
          const o = this.origin(target, name, new Set());
          if (o && o.file !== file) this.used.add(`${o.file}\0${o.name}`);
        }
      }
    }
    this.usedThroughSignatures();
  }

  /**
   * A type in the signature of a used export is used too: every caller of `runAgent` passes a
   * `RunAgentOptions`, so the type stays exported for them to name.
   */
  private usedThroughSignatures(): void {
    for (const [file, facts] of this.facts) {
      const pending = [...facts.local.keys()].filter((n) => this.used.has(`${file}\0${n}`));
      while (pending.length) {
        const shape = facts.shape.get(pending.pop()!) ?? '';
        for (const t of facts.types)
          if (!this.used.has(`${file}\0${t}`) && new RegExp(`\\b${t}\\b`).test(shape)) {
            this.used.add(`${file}\0${t}`);
            pending.push(t);
          }
      }
    }
  }

  /** The repository file a specifier names (relative, or a package entry), if it is one of ours. */
  resolveModule(fromFile: string, specifier: string): string | undefined {
    if (specifier.startsWith('/')) return this.facts.has(specifier.slice(1)) ? specifier.slice(1) : undefined;
    if (!specifier.startsWith('.')) return this.packageEntries.get(specifier);
    const base = join(dirname(fromFile), specifier);
    for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')])
      if (this.facts.has(candidate)) return candidate;
    return undefined;
  }

  /** Every name a module exports, through its `export … from` entries. */
  exportsOf(file: string, seen: Set<string>): Set<string> {
    const facts = this.facts.get(file);
    const names = new Set<string>();
    if (!facts || seen.has(file)) return names;
    seen.add(file);
    for (const n of facts.local.keys()) names.add(n);
    for (const n of facts.named.keys()) names.add(n);
    for (const from of facts.star) {
      const target = this.resolveModule(file, from);
      if (target) for (const n of this.exportsOf(target, seen)) if (n !== 'default') names.add(n);
    }
    return names;
  }

  /** Where an exported name is declared, following `export … from` chains. */
  origin(file: string, name: string, seen: Set<string>): ExportOrigin | undefined {
    const facts = this.facts.get(file);
    if (!facts || seen.has(file)) return undefined;
    seen.add(file);
    if (facts.local.has(name)) return { file, name };
    const forward = facts.named.get(name);
    if (forward) {
      const target = this.resolveModule(file, forward[0]);
      return target ? this.origin(target, forward[1], new Set()) : undefined;
    }
    for (const from of facts.star) {
      const target = this.resolveModule(file, from);
      const o = target && this.origin(target, name, seen);
      if (o) return o;
    }
    return undefined;
  }

  /** Names declared and exported by a non-test file of src/ that no other file uses. */
  unused(): ExportOrigin[] {
    const out: ExportOrigin[] = [];
    for (const [file, facts] of this.facts) {
      if (!file.startsWith('src/') || file.endsWith('.test.ts') || file.includes('/__fixtures__/')) continue;
      for (const name of facts.local.keys()) if (!this.used.has(`${file}\0${name}`)) out.push({ file, name });
    }
    return out.sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
  }
}
