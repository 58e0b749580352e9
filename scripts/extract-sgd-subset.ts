/**
 * Extracts the compact SGD subset vendored in data/sgd-db/sgd-subset.json (see its README).
 *
 *   npx tsx scripts/extract-sgd-subset.ts [SGD_DIR] [--per-intent N]
 *
 * SGD_DIR defaults to ../shared/data/sgd (google-research-datasets/dstc8-schema-guided-dialogue
 * @e852981). Dialogues are read in order (dev then test, files sorted); a dialogue is kept while
 * one of its AppBench intents (service.intent) has fewer than N kept calls, and of a kept dialogue only the
 * frames with a `service_call` of an AppBench service are written (service, service_call,
 * service_results), with their turn index. The output is deterministic.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const APPBENCH_SERVICES = [
  'Hotels_2', 'RentalCars_3', 'RideSharing_2', 'Buses_3', 'Events_3', 'Flights_4', 'Homes_2', 'Media_3',
  'Movies_1', 'Movies_3', 'Music_3', 'Payment_1', 'Restaurants_2', 'Services_1', 'Services_4',
  'Trains_1', 'Travel_1', 'Weather_1',
];

interface Frame {
  service: string;
  service_call?: { method: string; parameters: Record<string, string> };
  service_results?: Array<Record<string, string>>;
}
interface Dialogue {
  dialogue_id: string;
  turns: Array<{ frames: Frame[] }>;
}

const args = process.argv.slice(2);
const capFlag = args.indexOf('--per-intent');
const perIntent = capFlag >= 0 ? Number(args[capFlag + 1]) : 16;
const positional = args.filter((a, i) => !a.startsWith('--') && i !== capFlag + 1);
const sgdDir = resolve(positional[0] ?? '../shared/data/sgd');
const out = resolve(import.meta.dirname, '../data/sgd-db/sgd-subset.json');

const services = new Set(APPBENCH_SERVICES);
const kept = new Map<string, number>();
const key = (f: Frame) => `${f.service}.${f.service_call?.method}`;
const lines: string[] = [];
for (const split of ['dev', 'test']) {
  const dir = join(sgdDir, split);
  const names = readdirSync(dir).filter((n) => /^dialogues_\d+\.json$/.test(n)).sort();
  for (const name of names) {
    const dialogues = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Dialogue[];
    for (const d of dialogues) {
      const frames: Array<{ turn: number; frame: Frame }> = [];
      d.turns.forEach((t, turn) => {
        for (const f of t.frames)
          if (f.service_call && services.has(f.service)) frames.push({ turn, frame: f });
      });
      if (!frames.some(({ frame }) => (kept.get(key(frame)) ?? 0) < perIntent)) continue;
      for (const { frame } of frames) kept.set(key(frame), (kept.get(key(frame)) ?? 0) + 1);
      const compact = {
        dialogue_id: d.dialogue_id,
        source: `${split}/${name}`,
        turns: frames.map(({ turn, frame }) => ({
          turn,
          frames: [
            {
              service: frame.service,
              service_call: frame.service_call,
              service_results: frame.service_results ?? [],
            },
          ],
        })),
      };
      lines.push(JSON.stringify(compact));
    }
  }
}
writeFileSync(out, `[\n${lines.join(',\n')}\n]\n`);
const size = Buffer.byteLength(readFileSync(out));
process.stdout.write(`${out}: ${lines.length} dialogues, ${size} bytes\n`);
for (const [s, n] of [...kept].sort()) process.stdout.write(`  ${s}\t${n} calls\n`);
