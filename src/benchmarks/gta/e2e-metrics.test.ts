import { describe, expect, it } from 'vitest';
import { type PyJson, pyJsonDumps, toPyJson } from '../../shared/index.js';
import type { GtaEmbedder } from './answer-match.js';
import { type GtaE2eItem, scoreGtaE2e, scoreGtaE2eRecord, summarizeGtaE2e } from './e2e-metrics.js';

// Steps in the shapes the end-to-end agent records (docs/gta.md, "Official protocol: Lagent ReAct" and "Official scoring: end-to-end metrics")
const call = (name: string, args: Record<string, unknown> = {}, error?: string): PyJson =>
  toPyJson({
    role: 'assistant',
    ...(error ? { error: { type: 'API_ERROR', msg: error } } : {}),
    tool_calls: [{ type: 'function', function: { name, arguments: args } }],
  });
const ret = (content: unknown = [{ type: 'text', content: 'ok' }]): PyJson =>
  toPyJson({ role: 'tool', content });
const answer = (content: string): PyJson => toPyJson({ role: 'assistant', content });
const thought = (content: string): PyJson =>
  toPyJson({ role: 'assistant', content, meta: { type: 'thought' } });
/** Python: 1 / (math.sqrt(1) * math.sqrt(2)), the cosine of [1, 0] and [1, 1]. */
const COS45 = 0.7071067811865475;
const objective = (alias: string): PyJson => toPyJson({ whitelist: [[alias]], blacklist: null });

const G1 = { image: '/d/a.png', bbox: '(1, 2, 3, 4)' };
const G2 = { image: '/d/a.png', text: 'hi', position: 'mt' };
const P1 = { image: '/d/a.png', bbox: '(1, 2, 3, 5)' };
const P2 = { image: '/d/a.png', text: 'hello', position: 'mt' };
const json = (args: Record<string, unknown>) => pyJsonDumps(toPyJson(args));

/** Vectors by exact text: an unexpected text fails the test. */
function fakeEmbedder(table: Record<string, number[]>): GtaEmbedder & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    async embed(texts) {
      seen.push(...texts);
      return texts.map((t) => {
        const v = table[t];
        if (!v) throw new Error(`no vector for ${JSON.stringify(t)}`);
        return v;
      });
    },
  };
}
const embedder = () =>
  fakeEmbedder({
    ' a fine answer': [1, 0],
    r1: [0, 1],
    r2: [1, 1],
    r3: [-1, 0],
    [json(G1)]: [1, 0],
    [json(P1)]: [0.6, 0.8],
    [json(G2)]: [0, 1],
    [json(P2)]: [0.6, 0.8],
  });

// A: after the worked example of docs/gta.md: ImageDescription called twice, a failed Calculator call, then the answer
const A: GtaE2eItem = {
  golds: [
    call('ImageDescription'),
    ret(),
    call('CountGivenObject'),
    ret(),
    call('OCR'),
    ret(),
    call('Calculator'),
    ret(),
    answer('You should pay 12 dollars.'),
  ],
  predictions: [
    call('ImageDescription'),
    ret(),
    call('ImageDescription'),
    ret(),
    call('OCR'),
    ret(),
    call('Calculator', {}, 'invalid json format'),
    ret(null),
    call('Calculator'),
    ret(),
    thought('Multiply.'),
    answer(' 12 dollars'),
  ],
  reference: objective('12'),
};
// B: max_turn reached: the last step is a tool return, so the answer scores 0 even though "7" was said
const B: GtaE2eItem = {
  golds: [call('OCR'), ret(), answer('7')],
  predictions: [thought('7 maybe'), call('OCR'), ret()],
  reference: objective('7'),
};
// C: subjective
const C: GtaE2eItem = {
  golds: [answer('r1')],
  predictions: [answer(' a fine answer')],
  reference: toPyJson(['r1', 'r2', 'r3']),
};
// D: image generation whose gold chain has no image tool: 1, even with no prediction at all
const D: GtaE2eItem = {
  golds: [call('GoogleSearch', { query: 'x' }), ret(), answer('done')],
  predictions: [],
  reference: null,
};
// E: image generation: similarity of the gold and the last successful predicted arguments, multiplied
const E: GtaE2eItem = {
  golds: [call('DrawBox', G1), ret(), call('AddText', G2), ret(), answer('done')],
  predictions: [
    call('DrawBox', { image: '/d/a.png', bbox: 'wrong' }),
    ret(),
    call('DrawBox', P1),
    ret(),
    call('AddText', P2),
    ret(),
    answer('done'),
  ],
  reference: null,
};
// F: image generation whose only AddText call failed: 0 (the failed call still counts for F1)
const F: GtaE2eItem = {
  golds: [call('AddText', G2), ret(), answer('done')],
  predictions: [call('AddText', P2, 'TOOL_FAILED'), ret(null), answer('done')],
  reference: null,
};

describe('scoreGtaE2eRecord', () => {
  it('objective: the last step must be a matching answer; every call (failed, repeated) is listed', async () => {
    expect(await scoreGtaE2eRecord(A)).toEqual({
      reference: 'objective',
      predictedTools: ['ImageDescription', 'ImageDescription', 'OCR', 'Calculator', 'Calculator'],
      goldTools: ['ImageDescription', 'CountGivenObject', 'OCR', 'Calculator'],
      answerCorrect: true,
      answerScore: 1,
      imgGenScore: null,
      toolCall: 5,
      toolCallError: 1,
    });
    expect(await scoreGtaE2eRecord(B)).toMatchObject({ answerCorrect: false, answerScore: 0 });
  });

  it('empty predictions score 0 on an objective or subjective reference, without asking the embedder', async () => {
    const e = embedder();
    expect(await scoreGtaE2eRecord({ ...A, predictions: [] }, e)).toMatchObject({
      answerCorrect: false,
      answerScore: 0,
      predictedTools: [],
      toolCall: 0,
    });
    expect(await scoreGtaE2eRecord({ ...C, predictions: [] }, e)).toMatchObject({ answerScore: 0 });
    expect(await scoreGtaE2eRecord({ ...C, predictions: [answer('')] }, e)).toMatchObject({ answerScore: 0 });
    expect(e.seen).toEqual([]);
  });

  it('subjective: the best clipped cosine over the three references', async () => {
    const s = await scoreGtaE2eRecord(C, embedder());
    expect(s.answerScore).toBe(COS45);
    expect(s.answerCorrect).toBeNull();
  });

  it('image generation: 1 with no gold image tool, a product of similarities, 0 when a gold image tool is missing', async () => {
    const e = embedder();
    expect((await scoreGtaE2eRecord(D, e)).imgGenScore).toBe(1);
    expect((await scoreGtaE2eRecord(E, e)).imgGenScore).toBeCloseTo(0.6 * 0.8, 12);
    // the similarity texts are Python json.dumps of the argument dicts, the last successful DrawBox
    expect(e.seen).toEqual([json(G1), json(P1), json(G2), json(P2)]);
    expect((await scoreGtaE2eRecord(F, e)).imgGenScore).toBe(0);
  });

  it('without an embedder, subjective answers and needed similarities stay unscored (null)', async () => {
    expect((await scoreGtaE2eRecord(C)).answerScore).toBeNull();
    expect((await scoreGtaE2eRecord(E)).imgGenScore).toBeNull();
    expect((await scoreGtaE2eRecord(D)).imgGenScore).toBe(1);
    expect((await scoreGtaE2eRecord(F)).imgGenScore).toBe(0);
  });
});

describe('scoreGtaE2e', () => {
  it('AnsAcc over truthy references, AnsAcc w/ ImgGen over all, F1 per category (hand-computed)', async () => {
    const s = await scoreGtaE2e([A, B, C, D, E, F], embedder());
    expect(s.counts).toEqual({
      records: 6,
      answerRecords: 3,
      answerSum: 1 + COS45,
      imgGenSum: s.counts.imgGenSum,
    });
    expect(s.counts.imgGenSum).toBeCloseTo(1.48, 12);
    expect(s.ansAcc).toBe(56.903559372884914);
    expect(s.ansAccImg).toBeCloseTo(53.11844635310913, 10);
    // perception: predicted ImageDescription×2 + OCR (A) + OCR (B) = 4, gold 3, hits 3
    expect(s.categoryF1.perception).toEqual({ predicted: 4, gold: 3, hit: 3, f1: 85.71367347253643 });
    // logic: Calculator×2 (one failed) predicted; CountGivenObject missed
    expect(s.categoryF1.logic).toEqual({ predicted: 2, gold: 2, hit: 1, f1: 49.999375005312466 });
    // operation: GoogleSearch never called; DrawBox×2 and AddText (E), the failed AddText (F): 4 predicted, 3 hits
    expect(s.categoryF1.operation).toEqual({ predicted: 4, gold: 4, hit: 3, f1: 74.9994062534505 });
    expect(s.categoryF1.creativity).toEqual({ predicted: 0, gold: 0, hit: 0, f1: 0 });
    expect([s.toolCall, s.toolCallError]).toEqual([10, 2]);
    expect([s.unscoredSubjective, s.unscoredImgGen]).toEqual([0, 0]);
  });

  it('no records: every number is 0', () => {
    const s = summarizeGtaE2e([]);
    expect([s.ansAcc, s.ansAccImg, s.toolCall, s.categoryF1.logic.f1]).toEqual([0, 0, 0, 0]);
  });

  it('counts what the missing embeddings endpoint left unscored', async () => {
    const s = await scoreGtaE2e([C, D, E]);
    expect([s.unscoredSubjective, s.unscoredImgGen, s.ansAcc, s.ansAccImg]).toEqual([1, 1, 0, (1 / 3) * 100]);
  });
});
