import { crc32, deflateSync } from 'node:zlib';

/*
 * PNG files written byte by byte, for attacks a drawing library would refuse to make: a header that
 * declares 20000×20000 pixels over a few KB of deflated zeros (a decompression bomb), or noise rows.
 */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG chunk: length, type, data, CRC of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A PNG of `rows` (each a filter byte then the pixels) with the given IHDR bit depth and colour type. */
function png(width: number, height: number, bitDepth: number, colourType: number, rows: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([bitDepth, colourType, 0, 0, 0], 8); // deflate, adaptive filters, no interlace
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PNG of 1-bit greyscale rows (filter byte 0, then `row(y)` or zeros): tiny on disk. */
export function greyPng(width: number, height: number, fill?: (row: Buffer) => void): Buffer {
  const stride = 1 + Math.ceil(width / 8);
  const rows = Buffer.alloc(height * stride);
  if (fill) for (let y = 0; y < height; y++) fill(rows.subarray(y * stride + 1, (y + 1) * stride));
  return png(width, height, 1, 0, rows);
}

/** A valid all-black 1-bit greyscale PNG: tiny on disk, `width × height × 4` bytes once decoded. */
export function blackPng(width: number, height: number): Buffer {
  return greyPng(width, height);
}

/** A white 8-bit RGB PNG (a plain small image, the way a camera or a screenshot stores one). */
export function whitePng(width: number, height: number): Buffer {
  const stride = 1 + width * 3;
  const rows = Buffer.alloc(height * stride, 0xff);
  for (let y = 0; y < height; y++) rows[y * stride] = 0; // filter byte: none
  return png(width, height, 8, 2, rows);
}
