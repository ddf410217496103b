/**
 * The developer dashboard's script, run in the browser. `DashboardPage.ts` puts its source text
 * inline in the page (plain JavaScript once compiled: types are erased, nothing is fetched), so
 * {@link dashboardMain} is self-contained: everything it uses is inside it or passed in `lib`.
 * Everything from the wire goes into the page as text nodes (`textContent`), never as HTML: merchant
 * order ids, URLs and error texts are chosen by whoever calls the mock.
 */
import type * as AuditSchemas from "../api/AuditSchemas.js"
import type * as S from "../api/Schemas.js"
import type { MockEvent } from "../events/MockEvents.js"
import type { opensslVerifyCommand } from "./VerifyCommand.js"

/** What the page script is given: the shared command builder and its bounds. */
export interface DashboardLib {
  readonly opensslVerifyCommand: typeof opensslVerifyCommand
  /** Rows of the request log kept at most (older ones are dropped). */
  readonly maxLogRows: number
  /** Orders shown at most (the newest). */
  readonly maxOrders: number
  /** Orders, merchants and deliveries asked for in one list request. */
  readonly listLimit: number
}

type OrderSummary = typeof S.OrderSummary.Type
type Delivery = typeof S.Delivery.Type
type Attempt = typeof S.DeliveryAttempt.Type
type Merchant = typeof S.Merchant.Type
type PlatformKey = typeof S.PlatformKey.Type
type RequestEvent = Extract<MockEvent, { readonly type: "request" }>
type AuditReport = typeof AuditSchemas.AuditReport.Type

/**
 * Runs the dashboard in the page: loads orders, deliveries, merchants and platform keys from
 * `/dev/`, then follows `/dev/events` (read with `fetch`, so the developer token can go in a header,
 * never in a URL) and reconnects when the stream ends. Never throws; failures show in the page.
 *
 * @example
 * ```ts
 * const script = `(${dashboardMain.toString()})({ opensslVerifyCommand: ${opensslVerifyCommand.toString()}, maxLogRows: 200, maxOrders: 100, listLimit: 50 })`
 * ```
 */
export function dashboardMain(lib: DashboardLib): void {
  const TOKEN_KEY = "pc-mock-dev-token"
  const FLUSH_MS = 150
  const FEW = 10
  const MAX_FRAME_CHARS = 1_000_000

  // ---- state ----
  const orders = new Map<string, OrderSummary>()
  const deliveries = new Map<string, ReadonlyArray<Delivery>>()
  let merchants: ReadonlyArray<Merchant> = []
  let platformKeys: ReadonlyArray<PlatformKey> = []
  const log: Array<RequestEvent> = []
  /** Which attempt panels the developer opened, kept open across re-renders. */
  const opened = new Set<string>()
  const cards = new Map<string, { readonly key: string; readonly element: HTMLElement }>()

  const byId = <E extends HTMLElement>(id: string): E => document.getElementById(id) as E

  // ---- DOM: text only ----
  type Child = Node | string | null | undefined | false
  const el = (tag: string, attributes: Record<string, string> = {}, ...children: ReadonlyArray<Child>): HTMLElement => {
    const element = document.createElement(tag)
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value)
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue
      element.append(typeof child === "string" ? document.createTextNode(child) : child)
    }
    return element
  }
  const time = (iso: string | null): HTMLElement => {
    if (iso === null) return el("span", { class: "muted" }, "—")
    const date = new Date(iso)
    const text = Number.isNaN(date.getTime())
      ? iso
      : `${date.toLocaleTimeString([], { hour12: false })}.${String(date.getMilliseconds()).padStart(3, "0")}`
    return el("time", { datetime: iso, title: iso }, text)
  }
  const badge = (text: string, tone: string): HTMLElement => el("span", { class: `badge ${tone}` }, text)
  const statusTone = (status: string): string =>
    ({
      PAID: "ok",
      delivered: "ok",
      valid: "ok",
      current: "ok",
      active: "ok",
      FAILED: "bad",
      failed: "bad",
      refused: "bad",
      invalid: "bad",
      EXPIRED: "warn",
      pending: "warn",
      missing: "warn",
      disabled: "muted",
      published: "info",
      retired: "muted"
    })[status] ?? "info"

  // ---- notices ----
  const notice = (text: string, tone: "ok" | "bad" = "ok"): void => {
    const box = byId("notice")
    box.className = `notice ${tone}`
    box.textContent = text
    box.hidden = false
  }

  // ---- the developer token (CONTRACT.md "Exposure") ----
  const token = (): string | null => sessionStorage.getItem(TOKEN_KEY)
  const headers = (): Record<string, string> => {
    const value = token()
    return value === null ? {} : { authorization: `Bearer ${value}` }
  }
  const askToken = (message: string): void => {
    byId("token-reason").textContent = message
    byId("token-panel").hidden = false
    setLive("locked")
  }

  class Unauthorized extends Error {}

  /** Calls a /dev route (relative to the page, so a mock served under a path prefix works too). */
  const api = async <A>(method: "GET" | "POST", path: string, body?: unknown): Promise<A> => {
    const response = await fetch(new URL(path, document.baseURI), {
      method,
      cache: "no-store",
      ...(body === undefined
        ? { headers: headers() }
        : { headers: { ...headers(), "content-type": "application/json" }, body: JSON.stringify(body) })
    })
    const envelope = (await response.json().catch(() => null)) as {
      readonly code?: string
      readonly msg?: string | null
      readonly data?: unknown
    } | null
    if (envelope?.code === "unauthorized") {
      askToken(`unauthorized: ${envelope.msg ?? "the developer token is required"}`)
      throw new Unauthorized(envelope.msg ?? "unauthorized")
    }
    if (envelope?.code !== "SUCCESS") {
      throw new Error(`${envelope?.code ?? `HTTP ${response.status}`}: ${envelope?.msg ?? "no envelope"}`)
    }
    return envelope.data as A
  }

  // ---- rendering ----
  const headerValue = (attempt: Attempt, name: string): string | undefined => {
    if (attempt.requestHeaders === null) return undefined
    const found = Object.entries(attempt.requestHeaders).find(([key]) => key.toLowerCase() === name.toLowerCase())
    return found?.[1]
  }

  const verifyCommand = (
    delivery: Delivery,
    attempt: Attempt
  ): { readonly command?: string; readonly why?: string } => {
    const timestamp = headerValue(attempt, "x-r-ts")
    const signature = headerValue(attempt, "x-r-signature")
    if (attempt.requestBody === null || timestamp === undefined || signature === undefined) {
      return { why: "Nothing was signed: this attempt sent no request." }
    }
    const key = platformKeys.find((k) => k.version === attempt.keyVersion)
    if (key === undefined) return { why: `Platform key version ${attempt.keyVersion} is not listed.` }
    return {
      command: lib.opensslVerifyCommand({
        appKey: delivery.appKey,
        timestamp,
        signature,
        body: attempt.requestBody,
        publicKeyPem: key.publicKeyPem
      })
    }
  }

  const copyButton = (source: HTMLElement): HTMLElement => {
    const button = el("button", { type: "button", class: "small" }, "Copy")
    button.addEventListener("click", () => {
      const text = source.textContent ?? ""
      const selectIt = () => {
        const range = document.createRange()
        range.selectNodeContents(source)
        const selection = window.getSelection()
        selection?.removeAllRanges()
        selection?.addRange(range)
        notice("Selected: press Ctrl+C (or ⌘C) to copy.")
      }
      // The clipboard API exists only in a secure context (loopback or https).
      if (navigator.clipboard === undefined) return selectIt()
      navigator.clipboard.writeText(text).then(() => notice("Copied."), selectIt)
    })
    return button
  }

  const attemptView = (delivery: Delivery, attempt: Attempt): HTMLElement => {
    const id = `${delivery.id}#${attempt.attempt}`
    const outcome =
      attempt.httpStatus !== null
        ? badge(`HTTP ${attempt.httpStatus}`, attempt.httpStatus >= 200 && attempt.httpStatus < 300 ? "ok" : "bad")
        : badge(attempt.error === null ? "no answer" : "error", "bad")
    const summary = el(
      "summary",
      {},
      el("span", { class: "attempt-no" }, `#${attempt.attempt}`),
      time(attempt.at),
      outcome,
      el("span", { class: "muted", "data-testid": "latency" }, `${attempt.durationMs} ms`),
      attempt.keyVersion === null ? null : el("span", { class: "muted" }, `key v${attempt.keyVersion}`)
    )
    const rows: Array<Child> = [
      el("div", { class: "kv" }, el("span", { class: "muted" }, "URL"), el("code", {}, attempt.url ?? "no notify URL")),
      attempt.error === null
        ? null
        : el(
            "div",
            { class: "kv" },
            el("span", { class: "muted" }, "Error"),
            el("span", { class: "error" }, attempt.error)
          )
    ]
    if (attempt.requestHeaders !== null) {
      const lines = Object.entries(attempt.requestHeaders)
        .map(([name, value]) => `${name}: ${value}`)
        .join("\n")
      rows.push(el("h4", {}, "Headers sent"), el("pre", { "data-testid": "attempt-headers" }, lines))
    }
    if (attempt.requestBody !== null) {
      rows.push(el("h4", {}, "Body sent"), el("pre", { "data-testid": "attempt-body" }, attempt.requestBody))
    }
    const { command, why } = verifyCommand(delivery, attempt)
    if (command !== undefined) {
      const pre = el("pre", { "data-testid": "verify-command", class: "command" }, command)
      rows.push(
        el("div", { class: "row between" }, el("h4", {}, "Verify the signature with openssl"), copyButton(pre)),
        pre,
        el("p", { class: "muted small" }, "Prints “Verified OK” when the signature matches. Paste into bash.")
      )
    } else if (why !== undefined) {
      rows.push(el("p", { class: "muted small" }, why))
    }
    const details = el("details", { class: "attempt", "data-testid": "attempt" }, summary, ...rows)
    if (opened.has(id)) details.setAttribute("open", "")
    details.addEventListener("toggle", () => {
      if ((details as HTMLDetailsElement).open) opened.add(id)
      else opened.delete(id)
    })
    return details
  }

  const deliveryView = (delivery: Delivery): HTMLElement => {
    const resend = el("button", { type: "button", class: "small", "data-action": "resend" }, "Resend")
    resend.addEventListener("click", () =>
      act(resend, "POST", `dev/callbacks/${encodeURIComponent(delivery.id)}/resend`, `Resent ${delivery.eventType}.`)
    )
    const standing =
      delivery.status === "pending" && delivery.nextAttemptAt !== null
        ? el("span", { class: "muted" }, "next attempt ", time(delivery.nextAttemptAt))
        : null
    return el(
      "div",
      { class: "delivery", "data-testid": "delivery", "data-status": delivery.status, "data-delivery-id": delivery.id },
      el(
        "div",
        { class: "row" },
        el("code", {}, delivery.eventType),
        badge(delivery.status, statusTone(delivery.status)),
        el("span", { class: "muted" }, `${delivery.attemptCount} attempt${delivery.attemptCount === 1 ? "" : "s"}`),
        standing,
        el("span", { class: "spacer" }),
        resend
      ),
      ...delivery.attempts.map((attempt) => attemptView(delivery, attempt))
    )
  }

  const orderCard = (order: OrderSummary): HTMLElement => {
    const path = `dev/orders/${encodeURIComponent(order.orderSn)}`
    const actions =
      order.status === "CREATED"
        ? (["pay", "fail", "expire"] as const).map((verb) => {
            const button = el(
              "button",
              { type: "button", class: `small ${verb}`, "data-action": verb },
              verb[0]!.toUpperCase() + verb.slice(1)
            )
            button.addEventListener("click", () =>
              act(button, "POST", `${path}/${verb}`, `Order ${order.orderSn}: ${verb}.`)
            )
            return button
          })
        : []
    const list = deliveries.get(order.orderSn) ?? []
    return el(
      "article",
      { class: "card order", "data-testid": "order", "data-order-sn": order.orderSn, "data-status": order.status },
      el(
        "div",
        { class: "row" },
        badge(order.status, statusTone(order.status)),
        el("strong", { class: "amount", "data-testid": "amount" }, `${order.amount} ${order.currency}`),
        el("span", { class: "spacer" }),
        time(order.createdAt)
      ),
      el(
        "dl",
        {},
        el("dt", {}, "Merchant order"),
        el("dd", { "data-testid": "outer-order" }, order.outerOrder),
        el("dt", {}, "Order"),
        el("dd", {}, el("code", {}, order.orderSn)),
        el("dt", {}, "Merchant"),
        el("dd", {}, el("code", {}, order.appKey))
      ),
      actions.length > 0 ? el("div", { class: "row actions" }, ...actions) : null,
      list.length > 0
        ? el("div", { class: "deliveries" }, ...list.map(deliveryView))
        : order.status === "CREATED"
          ? null
          : el("p", { class: "muted small" }, "No callback recorded yet.")
    )
  }

  const renderOrders = (): void => {
    const sorted = [...orders.values()].sort((a, b) =>
      a.createdAt === b.createdAt ? (a.orderSn < b.orderSn ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1
    )
    // The page keeps the newest orders only: its memory does not grow with the mock's history.
    for (const dropped of sorted.splice(lib.maxOrders)) {
      orders.delete(dropped.orderSn)
      deliveries.delete(dropped.orderSn)
      cards.delete(dropped.orderSn)
    }
    const elements = sorted.map((order) => {
      // A card is rebuilt only when what it shows changed; moving the others keeps their open panels.
      const key = JSON.stringify([order, deliveries.get(order.orderSn) ?? [], platformKeys.length])
      const cached = cards.get(order.orderSn)
      if (cached !== undefined && cached.key === key) return cached.element
      const element = orderCard(order)
      cards.set(order.orderSn, { key, element })
      return element
    })
    byId("orders").replaceChildren(
      ...(elements.length > 0
        ? elements
        : [el("p", { class: "muted empty" }, "No orders yet. Create one with a signed POST /openapi/v2/order/create.")])
    )
    byId("orders-count").textContent = String(elements.length)
  }

  /** Each merchant's last callback endpoint audit: running, its report, or why it could not run. */
  const audits = new Map<
    string,
    { readonly running: true } | { readonly report: AuditReport } | { readonly error: string }
  >()

  const auditView = (appKey: string): HTMLElement | null => {
    const state = audits.get(appKey)
    if (state === undefined) return null
    if ("running" in state) return el("p", { class: "muted", "data-testid": "audit-running" }, "Auditing… (up to 60 s)")
    if ("error" in state) return el("p", { class: "why hint", "data-testid": "audit-error" }, state.error)
    const { report } = state
    const count = (verdict: string) => report.checks.filter((check) => check.verdict === verdict).length
    return el(
      "div",
      { class: "audit", "data-testid": "audit-report" },
      el(
        "div",
        { class: "row wrap" },
        badge(report.passed ? "passed" : "failed", report.passed ? "ok" : "bad"),
        el("span", { class: "small muted" }, `${count("pass")} pass · ${count("warn")} warn · ${count("fail")} fail`),
        el("code", { class: "small" }, report.url)
      ),
      el(
        "ol",
        { class: "audit-checks" },
        ...report.checks.map((check) =>
          el(
            "li",
            { "data-testid": "audit-check", "data-check": check.id, "data-verdict": check.verdict },
            el(
              "div",
              { class: "row wrap" },
              badge(check.verdict, check.verdict === "pass" ? "ok" : check.verdict === "warn" ? "warn" : "bad"),
              el("code", {}, check.id),
              el(
                "span",
                { class: "small muted" },
                `${check.status ?? (check.id === "latency" ? "slowest" : "no answer")} · ${check.ms} ms`
              )
            ),
            check.verdict === "pass" ? null : el("div", { class: "why small" }, check.detail)
          )
        )
      )
    )
  }

  const runAudit = (button: HTMLElement, appKey: string): void => {
    button.setAttribute("disabled", "")
    audits.set(appKey, { running: true })
    renderMerchants()
    api<AuditReport>("POST", `dev/merchants/${encodeURIComponent(appKey)}/audit`, {})
      .then(
        (report) => audits.set(appKey, { report }),
        (error: unknown) => audits.set(appKey, { error: error instanceof Error ? error.message : String(error) })
      )
      .finally(renderMerchants)
  }

  const enableButton = (appKey: string, version: number): HTMLElement => {
    const button = el("button", { type: "button", class: "small", "data-action": "enable-key" }, `Enable v${version}`)
    button.addEventListener("click", () =>
      act(
        button,
        "POST",
        `dev/merchants/${encodeURIComponent(appKey)}/keys/${version}/enable`,
        `Key v${version} of ${appKey} enabled.`
      )
    )
    return button
  }

  const renderMerchants = (): void => {
    byId("merchants").replaceChildren(
      ...merchants.map((merchant) =>
        el(
          "div",
          { class: "item", "data-testid": "merchant" },
          el("code", { class: "block" }, merchant.appKey),
          el(
            "div",
            { class: "kv" },
            el("span", { class: "muted" }, "Notify URL"),
            merchant.notifyUrl === null
              ? el("span", { class: "muted" }, "not set")
              : el("code", { "data-testid": "notify-url" }, merchant.notifyUrl)
          ),
          el(
            "div",
            { class: "row wrap" },
            ...merchant.keys.flatMap((key) => [
              el(
                "span",
                { class: `badge ${statusTone(key.status)}`, title: `uploaded ${key.uploadedAt}` },
                `v${key.version} ${key.status}`
              ),
              // A disabled key's way back: without it a disabled test merchant key refuses every request for good.
              ...(key.status === "disabled" ? [enableButton(merchant.appKey, key.version)] : [])
            ])
          ),
          (() => {
            const button = el(
              "button",
              {
                type: "button",
                class: "small",
                "data-action": "audit",
                title: "Send valid and forged callbacks to the notify URL and judge the answers"
              },
              "Audit endpoint"
            )
            const last = audits.get(merchant.appKey)
            if (merchant.notifyUrl === null || (last !== undefined && "running" in last))
              button.setAttribute("disabled", "")
            button.addEventListener("click", () => runAudit(button, merchant.appKey))
            return el("div", { class: "row wrap" }, button)
          })(),
          auditView(merchant.appKey)
        )
      )
    )
  }

  const renderKeys = (): void => {
    byId("platform-keys").replaceChildren(
      ...[...platformKeys]
        .sort((a, b) => b.version - a.version)
        .map((key) =>
          el(
            "details",
            { class: "item", "data-testid": "platform-key", "data-version": String(key.version) },
            el("summary", {}, el("strong", {}, `v${key.version}`), badge(key.status, statusTone(key.status))),
            el("pre", {}, key.publicKeyPem)
          )
        )
    )
  }

  const shownInLog = (event: RequestEvent): boolean =>
    (byId<HTMLInputElement>("show-reads").checked || !(event.method === "GET" && event.path.startsWith("/dev/"))) &&
    event.path !== "/dev/events"

  /** The faults injected on purpose (`fault` events), by the request they hit, for its row. */
  const faultsByRequest = new Map<string, string>()
  const logRow = (event: RequestEvent): HTMLElement => {
    const signature = event.signature
    const fault = faultsByRequest.get(event.requestId)
    return el(
      "li",
      { "data-testid": "request", "data-request-id": event.requestId },
      el(
        "div",
        { class: "row" },
        badge(String(event.status), event.status < 400 ? "ok" : event.status < 500 ? "warn" : "bad"),
        el("code", {}, event.method),
        el("code", { class: "path" }, event.path),
        fault === undefined ? null : el("span", { "data-testid": "fault" }, badge(`fault ${fault}`, "warn"))
      ),
      el(
        "div",
        { class: "row small muted" },
        time(event.at),
        `${event.durationMs} ms`,
        el("code", {}, event.requestId)
      ),
      signature === undefined
        ? null
        : el(
            "div",
            { class: "why", "data-testid": "signature" },
            badge(`signature ${signature.verdict}`, statusTone(signature.verdict)),
            signature.cause === null ? null : el("div", {}, signature.cause),
            signature.likelyCause === null ? null : el("div", { class: "hint" }, `Likely: ${signature.likelyCause}`)
          )
    )
  }

  const renderLog = (): void => {
    byId("log").replaceChildren(...log.filter(shownInLog).map(logRow))
  }

  const addToLog = (event: RequestEvent): void => {
    log.unshift(event)
    // The request log keeps at most lib.maxLogRows rows, in memory and in the page.
    log.splice(lib.maxLogRows)
    const body = byId("log")
    if (shownInLog(event)) body.prepend(logRow(event))
    while (body.children.length > lib.maxLogRows) body.lastElementChild?.remove()
  }

  // ---- loading ----
  const dirtyOrders = new Set<string>()
  const dirtyDeliveries = new Set<string>()
  let dirtyMerchants = false
  let dirtyKeys = false
  let flushTimer: ReturnType<typeof setTimeout> | undefined
  let flushing: Promise<void> = Promise.resolve()

  const setDeliveries = (list: ReadonlyArray<Delivery>): void => {
    const grouped = new Map<string, Array<Delivery>>()
    for (const delivery of list) grouped.set(delivery.orderSn, [...(grouped.get(delivery.orderSn) ?? []), delivery])
    for (const [orderSn, group] of grouped) {
      deliveries.set(
        orderSn,
        group.sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1))
      )
    }
  }

  const loadOrders = async (): Promise<void> => {
    for (const order of await api<ReadonlyArray<OrderSummary>>("GET", `dev/orders?limit=${lib.listLimit}`)) {
      orders.set(order.orderSn, order)
    }
  }
  const loadKeys = async (): Promise<void> => {
    platformKeys = await api<ReadonlyArray<PlatformKey>>("GET", "dev/platform-keys")
    renderKeys()
  }
  const loadMerchants = async (): Promise<void> => {
    merchants = await api<ReadonlyArray<Merchant>>("GET", `dev/merchants?limit=${lib.listLimit}`)
    renderMerchants()
  }

  // The mock's clock (CONTRACT.md "Faults and time"): how far a test or this page moved it.
  const showClock = (clock: { readonly now: string; readonly offsetMs: number }): void => {
    byId("clock").textContent = `${clock.now} (moved forward ${Math.round(clock.offsetMs / 60_000)} min)`
  }
  const loadClock = async (): Promise<void> => {
    showClock(await api<{ readonly now: string; readonly offsetMs: number }>("GET", "dev/clock"))
  }

  // The faults on purpose (CONTRACT.md "Faults and time"): the setting in force, and the callback
  // faults as they happen (a create-order's fault marks its row in the request log instead).
  const showFaultSetting = (setting: Record<string, unknown>): void => {
    byId("fault-setting").textContent =
      Object.keys(setting).length === 0 ? "none: the mock answers as the service does" : JSON.stringify(setting)
  }
  const loadFaults = async (): Promise<void> => {
    showFaultSetting(await api<Record<string, unknown>>("GET", "dev/faults"))
  }
  const addCallbackFault = (event: Extract<MockEvent, { readonly type: "fault" }>): void => {
    const list = byId("callback-faults")
    list.prepend(
      el(
        "li",
        { "data-testid": "callback-fault", "data-name": event.name },
        badge(event.name, "warn"),
        event.name === "delay" ? ` ${event.delayMs} ms` : "",
        event.orderId === null ? "" : el("code", {}, ` ${event.orderId}`),
        " ",
        time(event.at)
      )
    )
    while (list.children.length > lib.maxLogRows) list.lastElementChild?.remove()
  }

  const loadAll = async (): Promise<void> => {
    await Promise.all([
      loadClock(),
      loadFaults(),
      loadOrders(),
      api<ReadonlyArray<Delivery>>("GET", `dev/callbacks?limit=${lib.listLimit * 2}`).then(setDeliveries),
      loadMerchants(),
      loadKeys()
    ])
    renderOrders()
  }

  const flush = async (): Promise<void> => {
    const orderSns = [...dirtyOrders]
    const deliverySns = [...dirtyDeliveries]
    const merchantsToo = dirtyMerchants
    const keysToo = dirtyKeys
    dirtyOrders.clear()
    dirtyDeliveries.clear()
    dirtyMerchants = false
    dirtyKeys = false
    const work: Array<Promise<unknown>> = []
    if (orderSns.length > 0) {
      // One list request for any number of changes: the page's work does not grow with the traffic.
      work.push(
        loadOrders().then(async () => {
          const listed = new Set(orders.keys())
          const older = orderSns.filter((sn) => !listed.has(sn) && orders.has(sn)).slice(0, FEW)
          await Promise.all(
            older.map((sn) =>
              api<OrderSummary>("GET", `dev/orders/${encodeURIComponent(sn)}`).then((order) =>
                orders.set(sn, { ...order, appKey: orders.get(sn)?.appKey ?? "" })
              )
            )
          )
        })
      )
    }
    if (deliverySns.length > FEW) {
      work.push(api<ReadonlyArray<Delivery>>("GET", `dev/callbacks?limit=${lib.listLimit * 2}`).then(setDeliveries))
    } else {
      for (const sn of deliverySns) {
        work.push(
          api<ReadonlyArray<Delivery>>("GET", `dev/callbacks?orderSn=${encodeURIComponent(sn)}`).then(setDeliveries)
        )
      }
    }
    if (merchantsToo) work.push(loadMerchants())
    if (keysToo) work.push(loadKeys())
    await Promise.allSettled(work)
    renderOrders()
  }

  const schedule = (): void => {
    if (flushTimer !== undefined) return
    flushTimer = setTimeout(() => {
      flushTimer = undefined
      flushing = flushing.then(flush, flush)
    }, FLUSH_MS)
  }

  const onEvent = (event: MockEvent): void => {
    switch (event.type) {
      case "order.created":
        dirtyOrders.add(event.orderSn)
        break
      case "order.moved":
        dirtyOrders.add(event.orderSn)
        dirtyDeliveries.add(event.orderSn)
        break
      case "delivery.attempted":
        dirtyDeliveries.add(event.orderSn)
        break
      case "platformKey.rotated":
        dirtyKeys = true
        break
      case "fault":
        // Published before its request's answer: the request's row, next, shows it.
        if (event.route === "callback") addCallbackFault(event)
        else if (event.requestId !== null) faultsByRequest.set(event.requestId, event.name)
        if (faultsByRequest.size > lib.maxLogRows) faultsByRequest.delete(faultsByRequest.keys().next().value!)
        return
      case "request":
        addToLog(event)
        // A merchant change (a key enabled or disabled, a notify URL) shows without waiting for another event.
        if (event.method !== "GET" && event.path.startsWith("/dev/merchants")) {
          dirtyMerchants = true
          schedule()
        }
        // A new fault setting (from a test, pc faults, or another tab) shows at once.
        if (event.method !== "GET" && event.path === "/dev/faults") void loadFaults().catch(() => undefined)
        return
    }
    schedule()
  }

  // ---- the event stream ----
  const setLive = (state: "live" | "connecting" | "locked"): void => {
    const box = byId("live")
    box.dataset.state = state
    box.textContent = state === "live" ? "live" : state === "locked" ? "token needed" : "reconnecting…"
  }

  let stream: AbortController | undefined

  const listen = async (): Promise<void> => {
    stream?.abort()
    const controller = new AbortController()
    stream = controller
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(new URL("dev/events", document.baseURI), {
          headers: headers(),
          cache: "no-store",
          signal: controller.signal
        })
        if (response.status === 401) {
          const envelope = (await response.json().catch(() => null)) as { readonly msg?: string } | null
          askToken(`unauthorized: ${envelope?.msg ?? "the developer token is required"}`)
          return
        }
        if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`)
        byId("token-panel").hidden = true
        setLive("live")
        // Loaded after the stream is open, so nothing that happens in between is missed.
        await loadAll().catch((error: unknown) => {
          if (!(error instanceof Unauthorized)) notice(String(error), "bad")
        })
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
        let buffer = ""
        for (;;) {
          const { value, done } = await reader.read()
          if (done) break
          buffer += value
          let end = buffer.indexOf("\n\n")
          while (end !== -1) {
            for (const line of buffer.slice(0, end).split("\n")) {
              if (!line.startsWith("data:")) continue
              try {
                onEvent(JSON.parse(line.slice(5)) as MockEvent)
              } catch {
                // Not an event of ours: skipped.
              }
            }
            buffer = buffer.slice(end + 2)
            end = buffer.indexOf("\n\n")
          }
          // A frame that never ends is not an event stream: drop it rather than grow without bound.
          if (buffer.length > MAX_FRAME_CHARS) buffer = ""
        }
      } catch {
        if (controller.signal.aborted) return
      }
      setLive("connecting")
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }
  }

  // ---- actions ----
  const act = (button: HTMLElement, method: "POST", path: string, done: string, body?: unknown): void => {
    button.setAttribute("disabled", "")
    api(method, path, body)
      .then(
        () => notice(done),
        (error: unknown) => {
          if (!(error instanceof Unauthorized)) notice(error instanceof Error ? error.message : String(error), "bad")
        }
      )
      .finally(() => button.removeAttribute("disabled"))
  }

  const rotate = byId("rotate")
  // As the service does: publish first (merchants add the key), then the next click makes it sign.
  rotate.addEventListener("click", () => {
    const current = platformKeys.find((key) => key.status === "current")?.version ?? 0
    const pending = platformKeys.find((key) => key.status === "published" && key.version > current)
    if (pending !== undefined) {
      act(
        rotate,
        "POST",
        `dev/platform-keys/${pending.version}/activate`,
        `Platform key v${pending.version} signs now.`
      )
    } else {
      act(rotate, "POST", "dev/platform-keys/rotate", "New platform key published; Rotate again to make it sign.", {
        publishOnly: true
      })
    }
  })
  const advanceClock = byId("advance-clock")
  advanceClock.addEventListener("click", () => {
    advanceClock.setAttribute("disabled", "")
    api<{ readonly now: string; readonly offsetMs: number }>("POST", "dev/clock/advance", { ms: 30 * 60_000 })
      .then(
        (clock) => {
          showClock(clock)
          notice("Clock moved forward 30 minutes: what fell due goes out now.")
        },
        (error: unknown) => {
          if (!(error instanceof Unauthorized)) notice(error instanceof Error ? error.message : String(error), "bad")
        }
      )
      .finally(() => advanceClock.removeAttribute("disabled"))
  })
  byId("show-reads").addEventListener("change", renderLog)
  // Offered only while this tab holds a token: alone under the lists it only puzzled.
  const showForget = () => {
    byId("forget-token").hidden = token() === null
  }
  byId("token-form").addEventListener("submit", (submitted) => {
    submitted.preventDefault()
    const input = byId<HTMLInputElement>("token-input")
    const value = input.value.trim()
    if (value === "") return
    sessionStorage.setItem(TOKEN_KEY, value)
    input.value = ""
    byId("token-panel").hidden = true
    showForget()
    setLive("connecting")
    void listen()
  })
  byId("forget-token").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY)
    showForget()
    notice("Token forgotten for this tab.")
  })
  showForget()

  setLive("connecting")
  renderOrders()
  void listen()
}
