/** A step as the graph sees it: its id and the ids it depends on. */
export interface GraphNode {
  readonly id: string;
  readonly depends_on: readonly string[];
}

/**
 * Every cycle among the steps, each as the path that closes it (`['a', 'b', 'a']`), found by a
 * depth-first walk; a cycle through the same steps is reported once. Unknown ids are ignored
 * (the validator reports them on their own).
 */
export function findCycles(nodes: readonly GraphNode[]): string[][] {
  const byId = firstById(nodes);
  const state = new Map<string, 'open' | 'closed'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const visit = (id: string) => {
    state.set(id, 'open');
    stack.push(id);
    for (const next of byId.get(id)?.depends_on ?? []) {
      if (!byId.has(next)) continue;
      if (state.get(next) === 'open') {
        const cycle = [...stack.slice(stack.indexOf(next)), next];
        const key = [...new Set(cycle)].sort().join('\u0000');
        if (!seen.has(key)) {
          seen.add(key);
          // Read in the direction work flows: a → b means b runs after a.
          cycles.push(cycle.reverse());
        }
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(id, 'closed');
  };
  for (const node of nodes) if (!state.has(node.id)) visit(node.id);
  return cycles;
}

/**
 * For each step, every step it waits for, directly or through others. Assumes no cycles
 * (a cycle's steps only see what was reached before the cycle closed).
 */
export function upstreamSets(nodes: readonly GraphNode[]): Map<string, Set<string>> {
  const byId = firstById(nodes);
  const result = new Map<string, Set<string>>();
  const collect = (id: string, visiting: Set<string>): Set<string> => {
    const known = result.get(id);
    if (known) return known;
    const upstream = new Set<string>();
    visiting.add(id);
    for (const dependency of byId.get(id)?.depends_on ?? []) {
      if (!byId.has(dependency) || visiting.has(dependency)) continue;
      upstream.add(dependency);
      for (const further of collect(dependency, visiting)) upstream.add(further);
    }
    visiting.delete(id);
    result.set(id, upstream);
    return upstream;
  };
  for (const node of nodes) collect(node.id, new Set());
  return result;
}

/** Nodes by id; of a duplicated id (reported by the validator) the first one counts. */
function firstById(nodes: readonly GraphNode[]): Map<string, GraphNode> {
  const byId = new Map<string, GraphNode>();
  for (const node of nodes) if (!byId.has(node.id)) byId.set(node.id, node);
  return byId;
}
