/**
 * One output stream of a sandboxed process, kept up to `maxBytes`. The first chunk that goes
 * past the cap keeps what fits, marks the output truncated and calls `onOverflow` once (the
 * sandbox then kills the process: flooding output is never useful to a tool's caller).
 */
export class BoundedOutput {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onOverflow: () => void,
  ) {}

  add(chunk: Buffer): void {
    if (this.truncated) return;
    const room = this.maxBytes - this.size;
    if (chunk.length <= room) {
      this.chunks.push(chunk);
      this.size += chunk.length;
      return;
    }
    if (room > 0) this.chunks.push(chunk.subarray(0, room));
    this.size = this.maxBytes;
    this.truncated = true;
    this.onOverflow();
  }

  get bytes(): number {
    return this.size;
  }

  buffer(): Buffer {
    return Buffer.concat(this.chunks);
  }

  text(): string {
    return this.buffer().toString('utf8');
  }
}
