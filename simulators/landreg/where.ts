/**
 * The subset of ArcGIS SQL `where` clauses GIS clients send: comparisons (=, <>, !=, <, >, <=,
 * >=), IN lists, IS [NOT] NULL, LIKE, AND / OR / NOT, parentheses, `1=1`, and date literals
 * (`timestamp '2024-01-01 00:00:00'`, `date '2024-01-01'`). Field names are checked against
 * the layer so a typo answers an error, as on the real server.
 */
import type { AttrValue } from './model';

export class WhereError extends Error {}

type Operand = { k: 'field'; name: string } | { k: 'lit'; v: string | number | null };
export type WhereAst =
  | { t: 'and' | 'or'; items: WhereAst[] }
  | { t: 'not'; e: WhereAst }
  | { t: 'cmp'; op: string; l: Operand; r: Operand }
  | { t: 'in'; l: Operand; values: Operand[]; neg: boolean }
  | { t: 'null'; l: Operand; neg: boolean }
  | { t: 'like'; l: Operand; pattern: string; neg: boolean };

interface Token {
  k: 'id' | 'num' | 'str' | 'op' | 'punct';
  v: string;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'") {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) throw new WhereError('Unterminated string literal');
        if (src[i] === "'") {
          if (src[i + 1] === "'") {
            s += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        s += src[i++];
      }
      out.push({ k: 'str', v: s });
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(src[i + 1] ?? '') && !prevIsValue(out))) {
      const m = /^-?\d+(\.\d+)?/.exec(src.slice(i))!;
      out.push({ k: 'num', v: m[0] });
      i += m[0].length;
    } else if (/[A-Za-z_"]/.test(c)) {
      const m = /^"?([A-Za-z_][A-Za-z0-9_.]*)"?/.exec(src.slice(i))!;
      out.push({ k: 'id', v: m[1] });
      i += m[0].length;
    } else if (/[<>=!]/.test(c)) {
      const two = src.slice(i, i + 2);
      if (['<>', '!=', '<=', '>='].includes(two)) {
        out.push({ k: 'op', v: two === '!=' ? '<>' : two });
        i += 2;
      } else if (c === '=' || c === '<' || c === '>') {
        out.push({ k: 'op', v: c });
        i++;
      } else throw new WhereError(`Unexpected character ${c}`);
    } else if (c === '(' || c === ')' || c === ',') {
      out.push({ k: 'punct', v: c });
      i++;
    } else {
      throw new WhereError(`Unexpected character ${c}`);
    }
  }
  return out;
}

function prevIsValue(tokens: Token[]): boolean {
  const p = tokens[tokens.length - 1];
  return !!p && (p.k === 'num' || p.k === 'str' || (p.k === 'id' && !KEYWORDS.has(p.v.toUpperCase())) || p.v === ')');
}

const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'IN', 'IS', 'NULL', 'LIKE', 'TIMESTAMP', 'DATE']);

function parseDateLiteral(s: string): number {
  const iso = s.trim().replace(' ', 'T');
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}${iso.includes('T') ? '' : 'T00:00:00'}Z`);
  if (!Number.isFinite(ms)) throw new WhereError(`Invalid date literal '${s}'`);
  return ms;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }
  private kw(word: string): boolean {
    const t = this.peek();
    if (t && t.k === 'id' && t.v.toUpperCase() === word) {
      this.i++;
      return true;
    }
    return false;
  }
  private expect(v: string): void {
    const t = this.tokens[this.i++];
    if (!t || t.v !== v) throw new WhereError(`Expected '${v}'`);
  }

  parse(): WhereAst {
    const e = this.or();
    if (this.i < this.tokens.length) throw new WhereError(`Unexpected '${this.tokens[this.i].v}'`);
    return e;
  }
  private or(): WhereAst {
    const items = [this.and()];
    while (this.kw('OR')) items.push(this.and());
    return items.length === 1 ? items[0] : { t: 'or', items };
  }
  private and(): WhereAst {
    const items = [this.unary()];
    while (this.kw('AND')) items.push(this.unary());
    return items.length === 1 ? items[0] : { t: 'and', items };
  }
  private unary(): WhereAst {
    if (this.kw('NOT')) return { t: 'not', e: this.unary() };
    const t = this.peek();
    if (t && t.v === '(' && t.k === 'punct') {
      this.i++;
      const e = this.or();
      this.expect(')');
      return e;
    }
    return this.predicate();
  }
  private operand(): Operand {
    const t = this.tokens[this.i++];
    if (!t) throw new WhereError('Unexpected end of where clause');
    if (t.k === 'num') return { k: 'lit', v: Number(t.v) };
    if (t.k === 'str') return { k: 'lit', v: t.v };
    if (t.k === 'id') {
      const up = t.v.toUpperCase();
      if (up === 'TIMESTAMP' || up === 'DATE') {
        const s = this.tokens[this.i++];
        if (!s || s.k !== 'str') throw new WhereError(`${up} needs a quoted value`);
        return { k: 'lit', v: parseDateLiteral(s.v) };
      }
      if (up === 'NULL') return { k: 'lit', v: null };
      return { k: 'field', name: up };
    }
    throw new WhereError(`Unexpected '${t.v}'`);
  }
  private predicate(): WhereAst {
    const l = this.operand();
    const neg = this.kw('NOT');
    if (this.kw('IN')) {
      this.expect('(');
      const values = [this.operand()];
      while (this.peek()?.v === ',') {
        this.i++;
        values.push(this.operand());
      }
      this.expect(')');
      return { t: 'in', l, values, neg };
    }
    if (this.kw('LIKE')) {
      const p = this.operand();
      if (p.k !== 'lit' || typeof p.v !== 'string') throw new WhereError('LIKE needs a string pattern');
      return { t: 'like', l, pattern: p.v, neg };
    }
    if (neg) throw new WhereError('NOT must be followed by IN or LIKE here');
    if (this.kw('IS')) {
      const isNot = this.kw('NOT');
      if (!this.kw('NULL')) throw new WhereError('Expected NULL');
      return { t: 'null', l, neg: isNot };
    }
    const op = this.tokens[this.i++];
    if (!op || op.k !== 'op') throw new WhereError('Expected a comparison operator');
    return { t: 'cmp', op: op.v, l, r: this.operand() };
  }
}

export function parseWhere(where: string | undefined): WhereAst | null {
  const src = (where ?? '').trim();
  if (src === '') return null;
  return new Parser(tokenize(src)).parse();
}

export type Predicate = (attrs: Record<string, AttrValue>) => boolean;

function compare(a: AttrValue, b: AttrValue): number | null {
  if (a === null || b === null) return null;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number' && typeof b === 'string' && b.trim() !== '' && Number.isFinite(Number(b))) return a - Number(b);
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Compiles the clause; `fields` are the layer's field names (upper case) for validation. */
export function compileWhere(ast: WhereAst | null, fields: ReadonlySet<string>): Predicate {
  if (!ast) return () => true;
  const val = (o: Operand): ((a: Record<string, AttrValue>) => AttrValue) => {
    if (o.k === 'lit') {
      const v = o.v;
      return () => v;
    }
    if (!fields.has(o.name)) throw new WhereError(`Invalid field: ${o.name}`);
    const name = o.name;
    return (a) => a[name] ?? null;
  };
  const build = (n: WhereAst): Predicate => {
    switch (n.t) {
      case 'and': {
        const ps = n.items.map(build);
        return (a) => ps.every((p) => p(a));
      }
      case 'or': {
        const ps = n.items.map(build);
        return (a) => ps.some((p) => p(a));
      }
      case 'not': {
        const p = build(n.e);
        return (a) => !p(a);
      }
      case 'null': {
        const l = val(n.l);
        return (a) => (l(a) === null) !== n.neg;
      }
      case 'like': {
        const l = val(n.l);
        const re = new RegExp(`^${n.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.')}$`, 'i');
        return (a) => {
          const v = l(a);
          return v !== null && re.test(String(v)) !== n.neg;
        };
      }
      case 'in': {
        const l = val(n.l);
        const vs = n.values.map(val);
        return (a) => {
          const v = l(a);
          if (v === null) return false;
          return vs.some((f) => compare(v, f(a)) === 0) !== n.neg;
        };
      }
      case 'cmp': {
        const l = val(n.l);
        const r = val(n.r);
        const op = n.op;
        return (a) => {
          const c = compare(l(a), r(a));
          if (c === null) return false;
          switch (op) {
            case '=':
              return c === 0;
            case '<>':
              return c !== 0;
            case '<':
              return c < 0;
            case '>':
              return c > 0;
            case '<=':
              return c <= 0;
            default:
              return c >= 0;
          }
        };
      }
    }
  };
  return build(ast);
}

/**
 * The numeric values a top-level conjunct pins `field` to (`field = n` or `field IN (...)`),
 * so a query touches only the UATs it names; null when the clause does not restrict it.
 */
export function pinnedValues(ast: WhereAst | null, field: string): number[] | null {
  if (!ast) return null;
  const conjuncts = ast.t === 'and' ? ast.items : [ast];
  let result: number[] | null = null;
  for (const c of conjuncts) {
    let vals: number[] | null = null;
    if (c.t === 'cmp' && c.op === '=') {
      const [f, v] = c.l.k === 'field' ? [c.l, c.r] : [c.r, c.l];
      if (f.k === 'field' && f.name === field && v.k === 'lit' && v.v !== null) vals = [Number(v.v)];
    } else if (c.t === 'in' && !c.neg && c.l.k === 'field' && c.l.name === field && c.values.every((v) => v.k === 'lit')) {
      vals = c.values.map((v) => Number((v as { v: unknown }).v));
    }
    if (vals) result = result ? result.filter((x) => vals!.includes(x)) : vals;
  }
  return result;
}
