/**
 * Finds the tables a TypeScript source reads or writes, for the table-ownership check
 * (test/unit/table-owners.test.ts, domain/db/owners.ts): table names after an SQL keyword inside
 * string and template literals, and Prisma delegate calls (`<client>.<model>.<method>(`).
 * Comments are never looked at, only literals and code.
 */
import ts from 'typescript';

/** Keywords after which an SQL statement names a relation; uppercase, as every statement here is written. */
const RELATION = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE|COPY|TRUNCATE|USING)\s+(?:ONLY\s+)?(?:IF\s+(?:NOT\s+)?EXISTS\s+)?((?:public\.)?[a-z_][a-z0-9_]*)\b/g;
/** `FROM a x, b y`: the relations after the first of a comma list. */
const COMMA_RELATION = /^\s*(?:AS\s+)?(?:[a-z_][a-z0-9_]*\s*)?,\s*((?:public\.)?[a-z_][a-z0-9_]*)\b/;

const PRISMA_METHODS = new Set([
  'findMany', 'findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'create', 'createMany',
  'createManyAndReturn', 'update', 'updateMany', 'updateManyAndReturn', 'upsert', 'delete', 'deleteMany',
  'count', 'aggregate', 'groupBy',
]);

export type TableAccess = { table: string; line: number; how: 'sql' | 'prisma' };

/** The known tables named as relations in one SQL text. */
export function tablesInSql(sql: string, tables: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const keep = (name: string) => {
    const table = name.replace(/^public\./, '');
    if (tables.has(table)) found.push(table);
  };
  for (const m of sql.matchAll(RELATION)) {
    keep(m[1]);
    let rest = sql.slice(m.index + m[0].length);
    for (let c = COMMA_RELATION.exec(rest); c; c = COMMA_RELATION.exec(rest)) {
      keep(c[1]);
      rest = rest.slice(c[0].length);
    }
  }
  return found;
}

/**
 * Every access of a known table in one source file. `models` maps a Prisma delegate name
 * (`registryEntry`) to its table (`registry_entries`).
 */
export function tableAccesses(
  fileName: string,
  text: string,
  tables: ReadonlySet<string>,
  models: ReadonlyMap<string, string>,
): TableAccess[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: TableAccess[] = [];
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    let sql: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) sql = node.text;
    else if (ts.isTemplateExpression(node)) {
      // Each interpolation stands for one opaque word, so `FROM ${x}` names nothing.
      sql = node.head.text + node.templateSpans.map((s) => ` \u0000 ${s.literal.text}`).join('');
    }
    if (sql !== undefined) {
      for (const table of tablesInSql(sql, tables)) found.push({ table, line: lineOf(node), how: 'sql' });
    }
    if (ts.isPropertyAccessExpression(node) && PRISMA_METHODS.has(node.name.text) && ts.isPropertyAccessExpression(node.expression)) {
      const table = models.get(node.expression.name.text);
      if (table !== undefined && ts.isCallExpression(node.parent) && node.parent.expression === node) {
        found.push({ table, line: lineOf(node), how: 'prisma' });
      }
    }
    if (ts.isTemplateExpression(node)) {
      for (const span of node.templateSpans) visit(span.expression);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
