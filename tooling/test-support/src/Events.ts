// Reading a mock's `GET /dev/events` (Server-Sent Events) in tests: every event collected as it
// arrives, with a wait for the first one that matches.

export type Event = Record<string, unknown> & { readonly type: string }

/**
 * Reads the SSE stream of the mock at `url`, collecting its events, until `close`.
 *
 * @example
 * ```ts
 * const events = await listenEvents(mock.url)
 * await events.next((event) => event.type === "order.created")
 * await events.close()
 * ```
 */
export const listenEvents = async (url: string) => {
  const controller = new AbortController()
  const response = await fetch(`${url}/dev/events`, { signal: controller.signal })
  const type = response.headers.get("content-type") ?? ""
  if (response.status !== 200 || !type.startsWith("text/event-stream")) {
    controller.abort()
    throw new Error(`GET ${url}/dev/events answered ${response.status} ${type}, not an event stream`)
  }
  const events: Array<Event> = []
  const waiters: Array<() => void> = []
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (done) return
      buffer += value
      let end = buffer.indexOf("\n\n")
      while (end !== -1) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        for (const line of frame.split("\n")) {
          if (line.startsWith("data: ")) events.push(JSON.parse(line.slice(6)) as Event)
        }
        for (const wake of waiters.splice(0)) wake()
        end = buffer.indexOf("\n\n")
      }
    }
  })()
  /** Resolves with the first event matching `predicate` (already received or still to come). */
  const next = async (predicate: (event: Event) => boolean): Promise<Event> => {
    for (;;) {
      const found = events.find(predicate)
      if (found !== undefined) return found
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
  return {
    events,
    next,
    close: async () => {
      controller.abort()
      await pump
    }
  }
}
