import type { ScriptedChatRequest, ScriptedReply } from '../../../test/index.js';

/**
 * The scripted model of the end-to-end tests (ours): for each query of e2e/dataset.json, a policy
 * that reads the tool responses so far from the conversation and writes the next ReAct reply, so
 * the answers depend on what the real tools returned.
 */

export const SOLVE1 =
  "```python\nfrom sympy import symbols, Eq, solve\ndef solution():\n    x = symbols('x')\n    return str(solve(Eq(2*x + 3, 11), x))\n```";
export const SOLVE2 =
  "```python\nfrom sympy import symbols, Eq, solve\ndef solution():\n    x, y = symbols('x y')\n    return str(solve([Eq(x + y, 10), Eq(x - y, 2)], [x, y]))\n```";
export const PLOT =
  '```python\nimport matplotlib.pyplot as plt\ndef solution():\n    xs = [x / 10 for x in range(-30, 31)]\n    fig = plt.figure(figsize=(4, 3))\n    plt.plot(xs, [x * x for x in xs])\n    return fig\n```';

const act = (thought: string, name: string, args: Record<string, unknown>) =>
  `Thought:${thought}\nAction:${name}\nAction Input:${JSON.stringify(args)}`;
const fin = (thought: string, answer: string) => `Thought:${thought}\nFinal Answer:${answer}`;
const grab = (re: RegExp, text: string) => {
  const m = re.exec(text);
  if (!m) throw new Error(`${re} not in ${JSON.stringify(text)}`);
  return m[1]!;
};

/** The model's policy per query: turn n sees the tool responses so far (`last` = the latest). */
type Policy = (c: { file: string; n: number; last: string }) => string;
export const POLICIES: Record<string, Policy> = {
  'The receipt lists two items. How much do they cost together?': ({ file, n, last }) =>
    n === 0
      ? act('Read the receipt.', 'OCR', { image: file })
      : n === 1
        ? act('Add the two prices.', 'Calculator', { expression: last.match(/\d+\.\d+/g)!.join('+') })
        : fin(`The sum is ${last}.`, `The two items cost ${last} together.`),
  'At what hour does the shop open?': ({ file, n, last }) =>
    n === 0
      ? act('Read the sign.', 'OCR', { image: file })
      : fin('The first line says it.', `It opens at ${grab(/Opens at (\d+ am)/, last)}.`),
  'What is 17 times 23?': ({ n, last }) =>
    n === 0
      ? act('Multiply.', 'Calculator', { expression: '17*23' })
      : fin('Done.', `17 times 23 is ${last}.`),
  'One ticket costs the price shown. How much do 3 tickets cost?': ({ file, n, last }) =>
    n === 0
      ? act('Read the ticket price.', 'OCR', { image: file })
      : n === 1
        ? act('Three tickets.', 'Calculator', { expression: `${grab(/Ticket (\d+)/, last)}*3` })
        : fin('Done.', `3 tickets cost ${last}.`),
  'Solve the equation 2x + 3 = 11 for x.': ({ n, last }) =>
    n === 0
      ? act('Solve it with sympy.', 'Solver', { command: SOLVE1 })
      : fin('Done.', `x = ${grab(/^\[(.*)\]$/, last)}`),
  'Find x and y if x + y = 10 and x - y = 2.': ({ n, last }) =>
    n === 0
      ? act('Solve the system.', 'Solver', { command: SOLVE2 })
      : fin('Done.', `x = ${grab(/x: (\d+)/, last)} and y = ${grab(/y: (\d+)/, last)}`),
  'Plot y = x squared for x from -3 to 3.': ({ n, last }) =>
    n === 0
      ? act('Plot the parabola.', 'Plot', { command: PLOT })
      : fin(`The plot is at ${grab(/\[image\]\((.*)\)/, last)}.`, 'Here is the plot.'),
  'Draw a box around the word EXIT.': ({ file, n, last }) =>
    n === 0
      ? act('Find the word.', 'OCR', { image: file })
      : n === 1
        ? act('Draw the box.', 'DrawBox', { image: file, bbox: `(${grab(/^\((.*)\) EXIT$/m, last)})` })
        : fin('Done.', 'I drew a box around EXIT.'),
  'Write SALE at the top middle of the poster.': ({ file, n }) =>
    n === 0
      ? act('Add the text.', 'AddText', { image: file, text: 'SALE', position: 'mt' })
      : fin('Done.', 'Done.'),
  'How much do 2 coffees and 1 bagel cost?': ({ file, n, last }) =>
    n === 0
      ? act('Read the menu.', 'OCR', { image: file })
      : n === 1
        ? act('Add up.', 'Calculator', {
            expression: `2*${grab(/Coffee (\d+)/, last)}+1*${grab(/Bagel (\d+)/, last)}`,
          })
        : fin('Done.', `They cost ${last}.`),
  'Write the number on the price tag in blue at the bottom right of the image.': ({ file, n, last }) =>
    n === 0
      ? act('Read the price.', 'OCR', { image: file })
      : n === 1
        ? act('Write it.', 'AddText', {
            image: file,
            text: grab(/Price (\d+)/, last),
            position: 'rb',
            color: 'blue',
          })
        : fin('Done.', 'Done.'),
  'A rectangle is 3 m by 4 m. How long is its diagonal?': ({ n, last }) =>
    n === 0
      ? act('Pythagoras.', 'Calculator', { expression: 'math.sqrt(3**2+4**2)' })
      : fin('Done.', `The diagonal is ${last} m.`),
  'What are the opening hours on the sign?': ({ file, n, last }) =>
    n === 0
      ? act('Read the sign.', 'OCR', { image: file })
      : fin(
          'Both lines.',
          `The shop opens at ${grab(/Opens at (\d+ am)/, last)} and closes at ${grab(/Closes at (\d+ pm)/, last)}.`,
        ),
};

export function respond(req: ScriptedChatRequest): ScriptedReply {
  const users = req.messages.filter((m) => m.role === 'user');
  const query = users.at(-1)!.content;
  const hint = users.find((m) => m.content.startsWith('The related files are at '));
  const responses = req.messages.filter((m) => m.role === 'system' && m.content.startsWith('Response:'));
  const policy = POLICIES[query];
  if (!policy) return 'Final Answer:unknown query';
  return policy({
    file: hint ? grab(/`([^`]+)`/, hint.content) : '',
    n: responses.length,
    last: (responses.at(-1)?.content ?? '').replace(/^Response:/, '').replace(/\n$/, ''),
  });
}

