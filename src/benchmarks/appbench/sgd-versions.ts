import { type SgdService, type SgdSlot, sgdSlot } from './sgd-catalog.js';

/**
 * SGD services whose other versions are another trade (Services_1 hairdressers, _2 dentists,
 * _3 doctors, _4 therapists): their slots are not borrowed, a stylist has no cosmetic services.
 */
const NO_SIBLING_VERSIONS = new Set(['Services_1', 'Services_4']);

/** `Events_3` → `Events`; versions of one SGD service share the prefix. */
const serviceFamily = (name: string) => name.replace(/_\d+$/, '');

/** The intent of the same name in another version of a service (`Buses_2.FindBus` for `Buses_3.FindBus`). */
export interface SgdSiblingIntent {
  service: SgdService;
  intent: SgdService['intents'][number];
  /** Its slot → the own version's slot of the same meaning (`origin` → `from_city`); same names are left out. */
  toOwn: ReadonlyMap<string, string>;
}

const FILLER_WORDS = new Set(['of', 'the', 'name', 'number', 'has', 'is']);
const words = (slot: string) => slot.split('_').filter((w) => !FILLER_WORDS.has(w));
const shareWord = (a: string, b: string) => words(a).some((w) => words(b).includes(w));

/** Two slots can mean the same when both are free text, or both categorical with a value in common. */
function compatible(a: SgdSlot, b: SgdSlot): boolean {
  if (a.is_categorical !== b.is_categorical) return false;
  return !a.is_categorical || a.possible_values.some((v) => b.possible_values.includes(v));
}

/**
 * Which slot of `sibling` means which slot of `own`, from the schemas alone (SGD declares no such
 * link; docs/catalogs.md "AppBench arguments"):
 * 1. a slot of the same name is the same slot;
 * 2. intents of the same name list their required slots in the same order (`origin`,
 *    `destination`, `departure_date` / `from_city`, `to_city`, `departure_date`): equal-length lists
 *    pair by position;
 * 3. their result slots too, between two slots already paired: equal-length runs pair by position
 *    when the names share a word (`origin_station_name` → `from_station`, `address_of_location` →
 *    `venue_address`; position alone would pair `starring` with `location`).
 * A pair needs compatible slots (`transfers` 0/1 is not `category` direct/one-stop); a slot pairs once.
 */
function slotCorrespondence(sibling: SgdService, own: SgdService): Map<string, string> {
  const ownNames = new Set(own.slots.map((s) => s.name));
  const toOwn = new Map<string, string>();
  const taken = new Set<string>();
  const target = (name: string) => (ownNames.has(name) ? name : toOwn.get(name));
  const pair = (from: string, to: string) => {
    if (from === to || ownNames.has(from) || toOwn.has(from) || taken.has(to)) return;
    if (!compatible(sgdSlot(sibling, from), sgdSlot(own, to))) return;
    toOwn.set(from, to);
    taken.add(to);
  };
  const shared = own.intents.flatMap((o) => {
    const s = sibling.intents.find((i) => i.name === o.name);
    return s ? [[s, o] as const] : [];
  });
  for (const [s, o] of shared)
    if (s.required_slots.length === o.required_slots.length)
      s.required_slots.forEach((name, i) => {
        pair(name, o.required_slots[i]!);
      });
  for (const [s, o] of shared) {
    // anchors: positions of result slots already paired, in the sibling's order
    const anchors: Array<[number, number]> = [[-1, -1]];
    s.result_slots.forEach((name, i) => {
      const j = o.result_slots.indexOf(target(name) ?? '');
      if (j >= 0) anchors.push([i, j]);
    });
    anchors.push([s.result_slots.length, o.result_slots.length]);
    for (let k = 1; k < anchors.length; k++) {
      const [i0, j0] = anchors[k - 1]!;
      const [i1, j1] = anchors[k]!;
      if (j1 <= j0 || i1 - i0 !== j1 - j0) continue;
      for (let d = 1; d < i1 - i0; d++) {
        const [from, to] = [s.result_slots[i0 + d]!, o.result_slots[j0 + d]!];
        if (shareWord(from, to)) pair(from, to);
      }
    }
  }
  return toOwn;
}

/**
 * The intent `intentName` in the other versions of `service` (by version number), with how their
 * slots map onto the own version's; none for services whose versions are other trades.
 */
export function sgdSiblingIntents(
  services: readonly SgdService[],
  service: SgdService,
  intentName: string,
): SgdSiblingIntent[] {
  if (NO_SIBLING_VERSIONS.has(service.service_name)) return [];
  const family = serviceFamily(service.service_name);
  return services
    .filter((s) => s !== service && serviceFamily(s.service_name) === family)
    .sort((a, b) => a.service_name.localeCompare(b.service_name, 'en', { numeric: true }))
    .flatMap((sibling) => {
      const intent = sibling.intents.find((i) => i.name === intentName);
      return intent ? [{ service: sibling, intent, toOwn: slotCorrespondence(sibling, service) }] : [];
    });
}
