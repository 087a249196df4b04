import { isObj } from './check.ts';

type Segment = string | number;

/** `$.a.b[0]['c d']` as path segments. */
export function parsePath(path: string): Segment[] | null {
  if (!path.startsWith('$')) return null;
  const out: Segment[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  re.lastIndex = 1;
  while (re.lastIndex < path.length) {
    const m = re.exec(path);
    if (!m) return null;
    out.push(m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[3] ?? m[4]));
  }
  return out;
}

interface Container {
  seg: Segment;
  array: boolean;
  members: number;
}

/**
 * Vertex's streamed function-call arguments (`partialArgs`: a JSON path with a string, number, bool or null
 * value; a string with `willContinue` goes on in the next fragment) as JSON text, written as the fragments
 * come: each call to `push` returns the next piece, and the pieces concatenated are the arguments object.
 */
export class PartialArgsWriter {
  private started = false;
  private readonly root: Container = { seg: '$', array: false, members: 0 };
  private readonly stack: Container[] = [];
  /** The path of the string still open (its closing quote not written yet). */
  private openString: string | null = null;

  /** The JSON text for one partialArgs entry. */
  push(arg: unknown): string {
    if (!isObj(arg) || typeof arg.jsonPath !== 'string') return '';
    const segs = parsePath(arg.jsonPath);
    if (!segs || segs.length === 0) return '';
    let out = this.begin();
    const str = typeof arg.stringValue === 'string' ? arg.stringValue : undefined;
    const more = arg.willContinue === true;
    if (this.openString !== null) {
      if (this.openString === arg.jsonPath && str !== undefined) {
        out += escaped(str);
        if (!more) {
          out += '"';
          this.openString = null;
        }
        return out;
      }
      out += '"';
      this.openString = null;
    }
    out += this.moveTo(segs);
    if (str !== undefined) {
      out += `"${escaped(str)}`;
      if (more) this.openString = arg.jsonPath;
      else out += '"';
    } else if (typeof arg.numberValue === 'number' && Number.isFinite(arg.numberValue))
      out += JSON.stringify(arg.numberValue);
    else if (typeof arg.boolValue === 'boolean') out += JSON.stringify(arg.boolValue);
    else out += 'null';
    return out;
  }

  /** The closing text: the open string, every open container and the object itself. */
  end(): string {
    let out = this.begin();
    if (this.openString !== null) out += '"';
    this.openString = null;
    while (this.stack.length) out += this.stack.pop()?.array ? ']' : '}';
    return `${out}}`;
  }

  private begin(): string {
    if (this.started) return '';
    this.started = true;
    return '{';
  }

  /** Closes and opens containers so that the next member written is at `segs`, and writes its key. */
  private moveTo(segs: Segment[]): string {
    const parent = segs.slice(0, -1);
    let common = 0;
    while (
      common < this.stack.length &&
      common < parent.length &&
      this.stack[common].seg === parent[common] &&
      this.stack[common].array === (typeof segs[common + 1] === 'number')
    )
      common++;
    let out = '';
    while (this.stack.length > common) out += this.stack.pop()?.array ? ']' : '}';
    for (let i = common; i < parent.length; i++) {
      out += this.member(parent[i]);
      const array = typeof segs[i + 1] === 'number';
      this.stack.push({ seg: parent[i], array, members: 0 });
      out += array ? '[' : '{';
    }
    return out + this.member(segs[segs.length - 1]);
  }

  /** The separator and key of a new member of the innermost open container. */
  private member(seg: Segment): string {
    const top = this.stack.at(-1) ?? this.root;
    const sep = top.members++ > 0 ? ',' : '';
    return top.array ? sep : `${sep}${JSON.stringify(String(seg))}:`;
  }
}

const escaped = (s: string) => JSON.stringify(s).slice(1, -1);
