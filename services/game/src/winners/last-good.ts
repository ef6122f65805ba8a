// The winners list through a stalled or unreachable Postgres: each read waits on Postgres for a bounded
// time and, past it (or on an error), the pod answers with the last good answer it read for the same page.
// A read that outlives its bound goes on and refreshes the page when it completes; at most a few reads are
// left waiting on Postgres at once, so a stall cannot take the whole connection pool (further requests are
// answered from memory without asking).

/** What a pod keeps: at most this many distinct pages (the first page is the one every visitor reads). */
const MAX_PAGES = 64;
/** Reads of the list waiting on Postgres at once, at most. */
const MAX_IN_FLIGHT = 2;

export class LastGoodPages<T> {
  private readonly pages = new Map<string, T>();
  private inFlight = 0;

  constructor(private readonly timeoutMs: number) {}

  /**
   * The page read by `read` if it answers within the bound, else the last good one for `key`; undefined
   * when there is neither (the pod never read that page).
   */
  async get(key: string, read: () => Promise<T>): Promise<T | undefined> {
    if (this.inFlight < MAX_IN_FLIGHT) {
      this.inFlight++;
      const reading = read()
        .then((page) => {
          this.remember(key, page);
          return page;
        })
        .finally(() => this.inFlight--);
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), this.timeoutMs);
      });
      try {
        const page = await Promise.race([reading, bound]);
        if (page !== undefined) return page;
      } catch {
        // Postgres refused or failed the read: fall back to what this pod last read.
      } finally {
        clearTimeout(timer);
      }
      // Whatever the late read ends in, it must not be an unhandled rejection.
      reading.catch(() => undefined);
    }
    return this.pages.get(key);
  }

  private remember(key: string, page: T): void {
    this.pages.delete(key);
    this.pages.set(key, page);
    if (this.pages.size > MAX_PAGES) this.pages.delete(this.pages.keys().next().value!);
  }
}
