// Replays the migrations' CREATE [OR REPLACE] FUNCTION / PROCEDURE and CREATE TRIGGER statements (and the DROPs and
// renames that undo them) in order, and renders the current definition of each function with the triggers that
// execute it: the pure half of scripts/db-functions.ts, which writes server/db/functions/.
//
// Statements are split as psql splits them: semicolons inside quotes ('…', E'…', "…"), dollar quotes ($$…$$,
// $tag$…$tag$), comments (--, nested /* */) and parentheses do not end a statement, nor do those inside the
// BEGIN … END (and CASE … END) of a CREATE FUNCTION's SQL-standard body (BEGIN ATOMIC).

export interface Migration {
  /** The file name, e.g. 0007_post_rollups.sql. */
  name: string;
  sql: string;
}

export interface Statement {
  /** From its first keyword to its semicolon, as written. */
  text: string;
  /** The comment lines just above it (without `--`), drizzle's statement breakpoints left out. */
  comment: string[];
}

interface Version {
  migration: string;
  comment: string[];
}

export interface FunctionDefinition {
  name: string;
  /** The parameter list as written, e.g. `(source text, sign integer)`. */
  parameters: string;
  /** The statement of the current definition. */
  text: string;
  /** Every CREATE of it, oldest first; the last one is `text`'s. */
  versions: Version[];
}

export interface TriggerDefinition {
  name: string;
  table: string;
  function: string;
  text: string;
  migration: string;
  comment: string[];
}

export interface Catalog {
  functions: Map<string, FunctionDefinition>;
  /** By `table.name` (a trigger's name is unique per table). */
  triggers: Map<string, TriggerDefinition>;
}

const IDENTIFIER_START = /[A-Za-z_\u0080-\uffff]/;
const IDENTIFIER_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

/** Splits SQL text into statements (see the top of this file); text after the last semicolon is one more. */
export function splitStatements(sql: string): Statement[] {
  const statements: Statement[] = [];
  let start = 0;
  let parens = 0;
  let begins = 0;
  let words: string[] = [];
  const isRoutine = () =>
    words[0] === 'create' &&
    (words[1] === 'function' ||
      words[1] === 'procedure' ||
      (words[1] === 'or' && words[2] === 'replace' && (words[3] === 'function' || words[3] === 'procedure')));
  const finish = (end: number) => {
    const statement = withComment(sql.slice(start, end));
    if (statement) statements.push(statement);
    start = end;
    parens = 0;
    begins = 0;
    words = [];
  };
  let i = 0;
  while (i < sql.length) {
    const char = sql[i]!;
    const next = sql[i + 1];
    if (char === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (char === '/' && next === '*') {
      i = skipBlockComment(sql, i);
    } else if (char === "'") {
      const escapes = /[eE]/.test(sql[i - 1] ?? '') && !IDENTIFIER_PART.test(sql[i - 2] ?? '');
      i = skipQuoted(sql, i, "'", escapes);
    } else if (char === '"') {
      i = skipQuoted(sql, i, '"', false);
    } else if (char === '$' && !IDENTIFIER_PART.test(sql[i - 1] ?? '')) {
      const tag = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        if (end === -1) throw new Error(`Unterminated dollar quote ${tag[0]}`);
        i = end + tag[0].length;
      } else {
        i += 1;
      }
    } else if (IDENTIFIER_START.test(char) && !IDENTIFIER_PART.test(sql[i - 1] ?? '')) {
      let end = i + 1;
      while (end < sql.length && IDENTIFIER_PART.test(sql[end]!)) end += 1;
      const word = sql.slice(i, end).toLowerCase();
      words.push(word);
      if (isRoutine() && parens === 0) {
        if (word === 'begin') begins += 1;
        else if (word === 'case' && begins > 0) begins += 1;
        else if (word === 'end' && begins > 0) begins -= 1;
      }
      i = end;
    } else {
      if (char === '(') parens += 1;
      else if (char === ')') parens = Math.max(0, parens - 1);
      else if (char === ';' && parens === 0 && begins === 0) finish(i + 1);
      i += 1;
    }
  }
  finish(sql.length);
  return statements;
}

function skipBlockComment(sql: string, from: number): number {
  let depth = 0;
  let i = from;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) {
      depth += 1;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      depth -= 1;
      i += 2;
      if (depth === 0) return i;
    } else {
      i += 1;
    }
  }
  throw new Error('Unterminated /* comment');
}

/** The index after the closing quote; a doubled quote stands for itself, and so does \' in an E'' string. */
function skipQuoted(sql: string, from: number, quote: string, escapes: boolean): number {
  let i = from + 1;
  while (i < sql.length) {
    if (escapes && sql[i] === '\\') i += 2;
    else if (sql[i] === quote && sql[i + 1] === quote) i += 2;
    else if (sql[i] === quote) return i + 1;
    else i += 1;
  }
  throw new Error(`Unterminated ${quote} quote`);
}

/** The statement without its leading comments and blank lines, and those comment lines; null for nothing at all. */
function withComment(chunk: string): Statement | null {
  const comment: string[] = [];
  let rest = chunk;
  for (;;) {
    const line = /^[ \t]*(?:--([^\n]*))?(?:\n|$)/.exec(rest);
    if (!line || line[0] === '') break;
    const text = line[1];
    if (text === undefined) {
      // A blank line parts the comments above it from the statement.
      if (comment.length) comment.length = 0;
    } else if (!text.startsWith('> statement-breakpoint')) {
      comment.push(text.replace(/^ /, ''));
    }
    rest = rest.slice(line[0].length);
  }
  const text = rest.trim();
  return text ? { text, comment } : null;
}

/** A name as PostgreSQL stores it: quoted as written, unquoted in lower case; the schema left out. */
function identifier(written: string): string {
  const parts = written.match(/"(?:[^"]|"")*"|[^."]+/g) ?? [];
  const last = parts.at(-1) ?? written;
  const name = last.trim();
  return name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name.toLowerCase();
}

const NAME = String.raw`(?:"(?:[^"]|"")*"|[A-Za-z_][\w$]*)(?:\s*\.\s*(?:"(?:[^"]|"")*"|[A-Za-z_][\w$]*))?`;
const CREATE_FUNCTION = new RegExp(
  String.raw`^CREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE)\s+(${NAME})\s*\(`,
  'i',
);
const CREATE_TRIGGER = new RegExp(
  String.raw`^CREATE\s+(?:OR\s+REPLACE\s+)?(?:CONSTRAINT\s+)?TRIGGER\s+(${NAME})\s[\s\S]*?\sON\s+(${NAME})[\s\S]*?\sEXECUTE\s+(?:FUNCTION|PROCEDURE)\s+(${NAME})\s*\(`,
  'i',
);
const DROP_FUNCTION = new RegExp(
  String.raw`^DROP\s+(?:FUNCTION|PROCEDURE|ROUTINE)\s+(?:IF\s+EXISTS\s+)?([\s\S]*)$`,
  'i',
);
const DROP_TRIGGER = new RegExp(
  String.raw`^DROP\s+TRIGGER\s+(?:IF\s+EXISTS\s+)?(${NAME})\s+ON\s+(${NAME})`,
  'i',
);
const DROP_TABLE = new RegExp(String.raw`^DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?([\s\S]*)$`, 'i');
const RENAME_FUNCTION = new RegExp(
  String.raw`^ALTER\s+(?:FUNCTION|PROCEDURE|ROUTINE)\s+(${NAME})\s*(?:\([^)]*\))?\s+RENAME\s+TO\s+(${NAME})`,
  'i',
);
const RENAME_TRIGGER = new RegExp(
  String.raw`^ALTER\s+TRIGGER\s+(${NAME})\s+ON\s+(${NAME})\s+RENAME\s+TO\s+(${NAME})`,
  'i',
);
const RENAME_TABLE = new RegExp(
  String.raw`^ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?(${NAME})\s+RENAME\s+TO\s+(${NAME})`,
  'i',
);

/** The parenthesised list that starts at `open` (nested parentheses and quotes inside are skipped). */
function parenthesised(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    const char = text[i];
    if (char === "'" || char === '"') i = skipQuoted(text, i, char, false) - 1;
    else if (char === '(') depth += 1;
    else if (char === ')' && --depth === 0) return text.slice(open, i + 1);
  }
  throw new Error(`Unbalanced parentheses in ${text.slice(0, 80)}`);
}

/** The names a DROP lists: `a, b(int)` → a, b; CASCADE and RESTRICT left out. */
function droppedNames(list: string): string[] {
  const names: string[] = [];
  let rest = list.replace(/;\s*$/, '').replace(/\s+(?:CASCADE|RESTRICT)\s*$/i, '');
  while (rest.trim()) {
    const match = new RegExp(String.raw`^\s*(${NAME})\s*`).exec(rest);
    if (!match) throw new Error(`Cannot read the names of DROP … ${list}`);
    names.push(identifier(match[1]!));
    rest = rest.slice(match[0].length);
    if (rest.startsWith('(')) rest = rest.slice(parenthesised(rest, 0).length).trimStart();
    rest = rest.replace(/^,/, '');
  }
  return names;
}

const squeeze = (text: string) => text.replace(/\s+/g, ' ').replace(/\(\s/g, '(').replace(/\s\)/g, ')');

/** The functions and triggers the migrations leave, in the order they are applied. */
export function replay(migrations: Migration[]): Catalog {
  const functions = new Map<string, FunctionDefinition>();
  const triggers = new Map<string, TriggerDefinition>();
  for (const migration of migrations) {
    for (const { text, comment } of splitStatements(migration.sql)) {
      const version = { migration: migration.name, comment };
      let match: RegExpExecArray | null;
      if ((match = CREATE_FUNCTION.exec(text))) {
        const name = identifier(match[1]!);
        const parameters = parenthesised(text, match[0].length - 1);
        const existing = functions.get(name);
        if (existing && squeeze(existing.parameters) !== squeeze(parameters)) {
          throw new Error(
            `${migration.name}: ${name}${parameters} would overload ${name}${existing.parameters}; ` +
              'overloads are not supported here (one file per name)',
          );
        }
        if (existing && !/^CREATE\s+OR\s+REPLACE/i.test(text)) {
          throw new Error(`${migration.name}: ${name} is created twice without OR REPLACE`);
        }
        functions.set(name, { name, parameters, text, versions: [...(existing?.versions ?? []), version] });
      } else if ((match = CREATE_TRIGGER.exec(text))) {
        const trigger = {
          name: identifier(match[1]!),
          table: identifier(match[2]!),
          function: identifier(match[3]!),
          text,
          ...version,
        };
        triggers.set(`${trigger.table}.${trigger.name}`, trigger);
      } else if ((match = DROP_TRIGGER.exec(text))) {
        triggers.delete(`${identifier(match[2]!)}.${identifier(match[1]!)}`);
      } else if ((match = DROP_FUNCTION.exec(text))) {
        for (const name of droppedNames(match[1]!)) {
          functions.delete(name);
          // CASCADE takes the triggers that execute it; without it PostgreSQL refuses while there are any.
          for (const [key, trigger] of triggers) if (trigger.function === name) triggers.delete(key);
        }
      } else if ((match = DROP_TABLE.exec(text))) {
        const tables = new Set(droppedNames(match[1]!));
        for (const [key, trigger] of triggers) if (tables.has(trigger.table)) triggers.delete(key);
      } else if ((match = RENAME_FUNCTION.exec(text))) {
        const [from, to] = [identifier(match[1]!), identifier(match[2]!)];
        const definition = functions.get(from);
        if (definition) {
          functions.delete(from);
          functions.set(to, { ...definition, name: to });
          for (const trigger of triggers.values()) if (trigger.function === from) trigger.function = to;
        }
      } else if ((match = RENAME_TRIGGER.exec(text))) {
        const key = `${identifier(match[2]!)}.${identifier(match[1]!)}`;
        const trigger = triggers.get(key);
        if (trigger) {
          triggers.delete(key);
          const renamed = { ...trigger, name: identifier(match[3]!) };
          triggers.set(`${renamed.table}.${renamed.name}`, renamed);
        }
      } else if ((match = RENAME_TABLE.exec(text))) {
        const [from, to] = [identifier(match[1]!), identifier(match[2]!)];
        for (const [key, trigger] of [...triggers]) {
          if (trigger.table !== from) continue;
          triggers.delete(key);
          triggers.set(`${to}.${trigger.name}`, { ...trigger, table: to });
        }
      }
    }
  }
  return { functions, triggers };
}

const commentLines = (lines: string[]) => lines.map((line) => (line ? `-- ${line}` : '--'));

/** The file of one function: a header (generated, from which migration), the migrations' comments, the definition, its triggers. */
export function renderFunction(definition: FunctionDefinition, triggers: TriggerDefinition[]): string {
  const [first, ...later] = definition.versions;
  const current = definition.versions.at(-1)!;
  const history = later.length
    ? `created in ${first!.migration}, replaced in ${later.map((v) => v.migration).join(', ')}`
    : `created in ${first!.migration}`;
  const lines = [
    '-- Generated by scripts/db-functions.ts (npm run db:functions) from server/db/migrations: do not edit. A change',
    '-- to this function is a new migration; this file then follows it.',
    `-- ${definition.name}: ${history}.`,
    `-- The definition below is the one of ${current.migration}.`,
  ];
  for (const version of definition.versions) {
    if (!version.comment.length) continue;
    lines.push('--', `-- Its comment in ${version.migration}:`, ...commentLines(version.comment));
  }
  lines.push('', `${definition.text}`);
  if (triggers.length) {
    lines.push('', '-- The triggers that execute it.');
    for (const trigger of triggers) {
      lines.push(
        '',
        `-- From ${trigger.migration}${trigger.comment.length ? ':' : '.'}`,
        ...commentLines(trigger.comment),
      );
      lines.push(trigger.text);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Every file of the listing, by name: one per function (<name>.sql). */
export function renderCatalog(catalog: Catalog): Map<string, string> {
  const files = new Map<string, string>();
  const names = [...catalog.functions.keys()].sort();
  for (const name of names) {
    const triggers = [...catalog.triggers.values()]
      .filter((trigger) => trigger.function === name)
      .sort((a, b) => a.table.localeCompare(b.table) || a.name.localeCompare(b.name));
    files.set(`${name}.sql`, renderFunction(catalog.functions.get(name)!, triggers));
  }
  return files;
}

/** "after insert on posts", read from the trigger's statement. */
function when(trigger: TriggerDefinition): string {
  const match = /\s(BEFORE|AFTER|INSTEAD\s+OF)\s+([\s\S]*?)\s+ON\s/i.exec(trigger.text);
  const timing = match ? `${match[1]!} ${match[2]!}`.replace(/\s+/g, ' ').toLowerCase() : 'on';
  return `${timing} on ${trigger.table}`;
}

/** The index (README.md): each function, the migrations that created and replaced it, the triggers that execute it. */
export function renderIndex(catalog: Catalog): string {
  const rows = [...catalog.functions.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((definition) => {
      const [first, ...later] = definition.versions;
      const triggers = [...catalog.triggers.values()]
        .filter((trigger) => trigger.function === definition.name)
        .sort((a, b) => a.table.localeCompare(b.table) || a.name.localeCompare(b.name))
        .map((trigger) => `\`${trigger.name}\` (${when(trigger)})`);
      const history = [`created in ${first!.migration}`, ...later.map((v) => `replaced in ${v.migration}`)];
      const executed = triggers.length ? `; executed by ${triggers.join(', ')}` : '';
      return `- [${definition.name}](${definition.name}.sql): ${history.join(', ')}${executed}.`;
    });
  return [
    '# SQL functions and triggers',
    '',
    'Generated by `scripts/db-functions.ts` (`npm run db:functions`) from `server/db/migrations`: do not edit. Each',
    'file holds the current definition of one function (from the last migration that created or replaced it), the',
    "migrations' comments on it, and the triggers that execute it. Migrations, once released, are never edited: a",
    'change to a function is a new migration, after which `npm run db:functions` updates this listing (`npm test`',
    'fails while it is stale).',
    '',
    ...rows,
    '',
  ].join('\n');
}
