// Renders the fixture images: tiny solid-colour PNGs with a darker stripe, written with node:zlib
// only. Run `node src/benchmarks/gta/__fixtures__/render-images.mjs` to regenerate them.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
};
function png(width, height, [r, g, b]) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = [];
  for (let y = 0; y < height; y++) {
    const stripe = y >= height / 3 && y < (2 * height) / 3;
    const row = [0];
    for (let x = 0; x < width; x++) row.push(...(stripe ? [r >> 1, g >> 1, b >> 1] : [r, g, b]));
    rows.push(...row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
const colours = [
  [230, 80, 60],
  [60, 160, 90],
  [70, 110, 220],
  [240, 200, 40],
  [150, 90, 200],
  [40, 190, 200],
  [200, 120, 40],
  [120, 120, 120],
];
const dir = new URL('./data/image/', import.meta.url);
colours.forEach((c, i) => writeFileSync(new URL(`image_${i + 1}.png`, dir), png(16, 12, c)));
