/**
 * Keeps the first `headBytes` and the last `tailBytes` of a stream and counts what fell between,
 * so a container that floods its output costs bounded memory and the log still shows how the run
 * began and how it ended.
 */
export class OutputCapture {
  private readonly head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  private dropped = 0;

  constructor(
    private readonly headBytes = 1024 * 1024,
    private readonly tailBytes = 1024 * 1024,
  ) {}

  push(chunk: Buffer): void {
    let rest = chunk;
    if (this.headSize < this.headBytes) {
      const take = Math.min(this.headBytes - this.headSize, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headSize += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailSize += rest.length;
    while (this.tailSize > this.tailBytes) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailSize - this.tailBytes;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailSize -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailSize -= excess;
        this.dropped += excess;
      }
    }
  }

  /** Bytes left out between head and tail. */
  get droppedBytes(): number {
    return this.dropped;
  }

  /** The kept text (UTF-8, invalid bytes replaced), with a marker where bytes were left out. */
  text(): string {
    if (this.dropped === 0) return Buffer.concat([...this.head, ...this.tail]).toString('utf8');
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    return `${head}\n[... ${this.dropped} bytes left out ...]\n${tail}`;
  }
}
