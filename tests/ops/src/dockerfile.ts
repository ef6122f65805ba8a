// A Dockerfile as instructions grouped by stage, enough to check what an image runs and how it is built:
// line continuations, comments, parser directives and heredocs are understood.
import { readFileSync } from 'node:fs';

export interface Instruction {
  keyword: string;
  args: string;
  /** Bodies of heredocs (`<<EOF ... EOF`) that belong to this instruction. */
  heredocs: string[];
  line: number;
}

export interface Stage {
  name?: string;
  from: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  directives: Record<string, string>;
  globalArgs: Instruction[];
  stages: Stage[];
}

export function parseDockerfile(file: string): Dockerfile {
  const lines = readFileSync(file, 'utf8').split('\n');
  const directives: Record<string, string> = {};
  const globalArgs: Instruction[] = [];
  const stages: Stage[] = [];
  let i = 0;
  for (; i < lines.length; i++) {
    const m = lines[i]!.match(/^#\s*([a-z]+)\s*=\s*(\S+)\s*$/);
    if (!m) break;
    directives[m[1]!] = m[2]!;
  }
  while (i < lines.length) {
    const start = i;
    let text = lines[i]!;
    i++;
    if (/^\s*(#|$)/.test(text)) continue;
    while (/\\\s*$/.test(text) && i < lines.length) {
      const next = lines[i]!;
      i++;
      if (/^\s*#/.test(next)) continue;
      text = text.replace(/\\\s*$/, ' ') + next.trim();
    }
    const m = text.trim().match(/^([A-Za-z]+)\s*(.*)$/);
    if (!m) throw new Error(`${file}:${start + 1}: cannot read "${text}"`);
    const instruction: Instruction = {
      keyword: m[1]!.toUpperCase(),
      args: m[2]!,
      heredocs: [],
      line: start + 1,
    };
    for (const h of instruction.args.matchAll(/<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?/g)) {
      const body: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== h[1]) body.push(lines[i++]!);
      if (i >= lines.length) throw new Error(`${file}:${start + 1}: heredoc ${h[1]} is not closed`);
      i++;
      instruction.heredocs.push(body.join('\n'));
    }
    if (instruction.keyword === 'FROM') {
      const f = instruction.args.match(/^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i);
      if (!f) throw new Error(`${file}:${start + 1}: cannot read FROM ${instruction.args}`);
      stages.push({ from: f[1]!, ...(f[2] ? { name: f[2] } : {}), instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword !== 'ARG')
        throw new Error(`${file}:${start + 1}: only ARG may come before FROM`);
      globalArgs.push(instruction);
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { directives, globalArgs, stages };
}

/** The JSON (exec) form of CMD, ENTRYPOINT or HEALTHCHECK CMD; undefined for the shell form. */
export function execForm(args: string): string[] | undefined {
  const trimmed = args.trim();
  if (!trimmed.startsWith('[')) return undefined;
  const parsed = JSON.parse(trimmed) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string'))
    throw new Error(`not an exec form: ${args}`);
  return parsed;
}

export function argDefault(d: Dockerfile, name: string, stage?: Stage): string | undefined {
  const all = [...d.globalArgs, ...(stage?.instructions ?? [])].filter((i) => i.keyword === 'ARG');
  for (const a of all.reverse()) {
    const m = a.args.match(/^(\w+)=(\S+)$/);
    if (m && m[1] === name) return m[2];
  }
  return undefined;
}

/** ENV values of a stage (`ENV A=1 B=2` and `ENV A 1`). */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of stage.instructions.filter((x) => x.keyword === 'ENV')) {
    if (/^\w+\s+[^=]*$/.test(i.args) && !i.args.includes('=')) {
      const [k, ...v] = i.args.split(/\s+/);
      env[k!] = v.join(' ');
      continue;
    }
    for (const m of i.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]!] = m[2]!.replace(/^"|"$/g, '');
  }
  return env;
}

export function last(stage: Stage, keyword: string): Instruction | undefined {
  return stage.instructions.filter((i) => i.keyword === keyword).at(-1);
}
