import { isNode, LineCounter, parseDocument } from 'yaml';
import { type ConfigDocument, documentSchema } from './document.ts';

/** One reason a file is refused, with the line it is on (1-based; 0 when it is about the whole file). */
export interface Problem {
  line: number;
  path: string;
  message: string;
}

/** A configuration file refused whole: nothing was changed. */
export class ConfigRefused extends Error {
  constructor(readonly problems: Problem[]) {
    super(problems.map(formatProblem).join('\n'));
  }
}

export const formatProblem = (p: Problem) =>
  `${p.line ? `line ${p.line}` : 'file'}${p.path ? ` (${p.path})` : ''}: ${p.message}`;

/** A parsed file: its document and where each path is written, for the reasons given later. */
export interface ConfigSource {
  doc: ConfigDocument;
  lineOf(path: ReadonlyArray<PropertyKey>): number;
}

/**
 * Parses YAML (or JSON, which is YAML) and checks it against the document schema. Every problem is reported at
 * once, each with its line; any problem refuses the whole file.
 */
export function parseConfig(text: string): ConfigSource {
  const lines = new LineCounter();
  const parsed = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: true });
  const lineOf = (path: ReadonlyArray<PropertyKey>): number => {
    for (let n = path.length; n >= 0; n--) {
      const node = parsed.getIn(path.slice(0, n) as unknown[], true);
      if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
    }
    return 0;
  };
  if (parsed.errors.length)
    throw new ConfigRefused(
      parsed.errors.map((e) => ({
        line: e.linePos?.[0].line ?? 0,
        path: '',
        message: e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, ''),
      })),
    );
  const checked = documentSchema.safeParse(parsed.toJS() ?? {});
  if (!checked.success)
    throw new ConfigRefused(
      checked.error.issues.slice(0, 50).map((i) => ({
        line: lineOf(i.code === 'unrecognized_keys' && i.keys[0] ? [...i.path, i.keys[0]] : i.path),
        path: i.path.join('.'),
        message: issueText(i),
      })),
    );
  return { doc: checked.data, lineOf };
}

function issueText(issue: { code: string; message: string; keys?: string[] }): string {
  if (issue.code === 'unrecognized_keys' && issue.keys?.length)
    return `unknown ${issue.keys.length > 1 ? 'keys' : 'key'}: ${issue.keys.join(', ')}`;
  return issue.message;
}
