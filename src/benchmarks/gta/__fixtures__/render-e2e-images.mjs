// Renders the end-to-end fixture images (e2e/image/*.png): black text on white, drawn with jimp's
// bitmap sans font so the real OCR tool reads it back. Run
// `node src/benchmarks/gta/__fixtures__/render-e2e-images.mjs` to regenerate them.
import { Jimp, loadFont } from 'jimp';
import { SANS_32_BLACK } from 'jimp/fonts';

const IMAGES = {
  'receipt.png': { width: 360, height: 120, lines: ['Tea 4.50', 'Cake 8.00'] },
  'sign.png': { width: 360, height: 120, lines: ['Opens at 9 am', 'Closes at 5 pm'] },
  'ticket.png': { width: 300, height: 80, lines: ['Ticket 12'] },
  'exit.png': { width: 240, height: 100, lines: ['EXIT'] },
  'menu.png': { width: 320, height: 120, lines: ['Coffee 3', 'Bagel 2'] },
  'price.png': { width: 320, height: 120, lines: ['Price 20'] },
  'poster.png': { width: 320, height: 160, lines: [] },
};

const font = await loadFont(SANS_32_BLACK);
for (const [name, { width, height, lines }] of Object.entries(IMAGES)) {
  const img = new Jimp({ width, height, color: 0xffffffff });
  lines.forEach((text, i) => {
    img.print({ font, x: 20, y: 20 + i * 50, text });
  });
  await img.write(new URL(`./e2e/image/${name}`, import.meta.url).pathname);
}
