/** Edit distance (insertions, deletions, substitutions) between two strings. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The candidates a caller probably meant by `name` (a typo, another case, a part of the name),
 * closest first, at most `max`. Case-insensitive; a candidate is close when it contains the name
 * or is contained in it, or is within a third of the name's length in edits (at least 1).
 */
export function closeNames(name: string, candidates: Iterable<string>, max = 3): string[] {
  const wanted = name.toLowerCase();
  const limit = Math.max(1, Math.floor(wanted.length / 3));
  const scored: Array<[string, number]> = [];
  for (const candidate of candidates) {
    const c = candidate.toLowerCase();
    const d = editDistance(wanted, c);
    const contains = (wanted.length >= 3 && c.includes(wanted)) || (c.length >= 3 && wanted.includes(c));
    if (d <= limit || contains) scored.push([candidate, d]);
  }
  scored.sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  return scored.slice(0, max).map(([candidate]) => candidate);
}
