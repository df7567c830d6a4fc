/**
 * The values a TypeScript source imports from other project files, for the application-service
 * check (test/unit/application-services.test.ts): `import { a, b as c }`, `import d`,
 * `import * as e` and `export { f } from`, each with the module resolved to a path from the
 * repository root. Type-only imports carry no code and are left out; package imports too.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One imported value: `name` is the exported name (`default`, or `*` for a namespace import). */
export type ValueImport = { module: string; name: string; line: number };

/** A relative specifier resolved like the bundler does (extension and index file omitted). */
export function resolveModule(fromFile: string, specifier: string, exists: (file: string) => boolean): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`]) {
    if (/\.tsx?$/.test(candidate) && exists(candidate)) return candidate;
  }
  return null;
}

export function valueImports(file: string, text: string, exists: (file: string) => boolean): ValueImport[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: ValueImport[] = [];
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const module = resolveModule(file, statement.moduleSpecifier.text, exists);
      if (!clause || clause.isTypeOnly || !module) continue;
      const add = (name: string, node: ts.Node) => found.push({ module, name, line: lineOf(node) });
      if (clause.name) add('default', clause.name);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) add('*', bindings);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const s of bindings.elements) if (!s.isTypeOnly) add((s.propertyName ?? s.name).text, s);
      }
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) && !statement.isTypeOnly) {
      const module = resolveModule(file, statement.moduleSpecifier.text, exists);
      if (!module) continue;
      const clause = statement.exportClause;
      if (!clause || ts.isNamespaceExport(clause)) found.push({ module, name: '*', line: lineOf(statement) });
      else for (const s of clause.elements) if (!s.isTypeOnly) found.push({ module, name: (s.propertyName ?? s.name).text, line: lineOf(s) });
    }
  }
  return found;
}

/** Whether a project file exists, for `resolveModule` on the real tree. */
export const fileExistsIn = (root: string) => (file: string) => fs.existsSync(path.join(root, file));
