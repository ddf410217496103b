// Callback deliveries and their attempts (tables `deliveries` and `delivery_attempts`): claiming due
// rows under a lease, recording each attempt before it is sent and its outcome after, resends.
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import type * as Wire from "@pc/core/Wire"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { epochMsType, joinFirstRows, wholeNumber } from "./Dialect.js"
import { rowsDecoder } from "./RowDecoder.js"
import { NotFound } from "./StoreError.js"
import {
  badRowIsDefect,
  column,
  Delivery,
  DeliveryAttempt,
  DeliveryStatus,
  type DeliveryWithAttempts
} from "./Records.js"

/** The error an attempt row carries from just before it is sent until its outcome is recorded. */
export const ATTEMPT_WITHOUT_OUTCOME =
  "no outcome recorded: the attempt is in flight, or the mock stopped while it was being sent"

/** An attempt row with the delivery it belongs to (to read the attempts of many deliveries at once). */
const AttemptRow = Schema.Struct({ ...DeliveryAttempt.fields, deliveryId: column("delivery_id", Schema.String) })

/** A callback to record together with an order's move, in the same transaction. */
export interface DeliveryDraft {
  readonly id: string
  readonly eventId: string
  readonly eventType: Wire.CallbackEventType
  readonly body: string
  readonly nowMs: number
  /** When its first attempt is due: `nowMs` unless a callback fault delays it (domain/Faults.ts). */
  readonly dueAtMs?: number | undefined
}

/** What a delivery's next state is after an attempt. */
export type NextDeliveryState =
  | { readonly status: "delivered" }
  | { readonly status: "pending"; readonly nextAttemptAtMs: number }
  | { readonly status: "failed" }

/** How a claim chooses rows (see {@link DeliveryStore.claimDue}). */
export interface ClaimOptions {
  /** Rows claimed at most. */
  readonly limit: number
  /** Attempts in flight at most for a merchant not in `limits`, counting those it already has. */
  readonly perMerchant: number
  /** The merchants whose limit is another than `perMerchant`, with theirs (a few: each is named in the claim). */
  readonly limits: ReadonlyMap<string, number>
  /** Rows this process has in flight: never claimed again while they are. */
  readonly exclude: ReadonlyArray<string>
  /** How many attempts each merchant has in flight in this process (merchants not named: none). */
  readonly inFlight: ReadonlyMap<string, number>
}

/** A claimed delivery with the notify URL its merchant had at the claim (`null`: none set). */
export interface ClaimedDelivery extends Delivery {
  readonly notifyUrl: string | null
}

/** An attempt about to be sent (see {@link DeliveryStore.beginAttempts}). */
export interface BegunAttempt
  extends Pick<DeliveryAttempt, "at" | "url" | "keyVersion" | "requestHeaders" | "requestBody"> {
  readonly deliveryId: string
}

/** An attempt's outcome and the delivery's next state (see {@link DeliveryStore.recordAttempts}). */
export interface AttemptOutcome {
  readonly delivery: Delivery
  /** The lease the attempt ran under. */
  readonly leasedUntilMs: number
  readonly attempt: Omit<DeliveryAttempt, "attempt" | "requestHeaders" | "requestBody">
  readonly next: NextDeliveryState
  /** The number {@link DeliveryStore.beginAttempts} gave the attempt; absent for one never begun (nothing sent). */
  readonly begun?: number | undefined
}

/** Deliveries and their attempts, as the store offers them. */
export interface DeliveryStore {
  /** Pending deliveries due at `nowMs`, at most 50, earliest first. */
  readonly dueDeliveries: (nowMs: number) => Effect.Effect<ReadonlyArray<Delivery>, SqlError>

  /**
   * When the earliest pending delivery falls due after `afterMs` (a retry, or a lease that ends);
   * `null` when none does. What is due already is the claim's business, not a timer's.
   */
  readonly nextDeliveryAt: (afterMs: number) => Effect.Effect<number | null, SqlError>

  /**
   * Leases a delivery that is pending and due at `nowMs` for an attempt until `untilMs` (see the
   * dispatcher). A compare-and-set: resolves `false`, and the caller must not attempt, when the row
   * is no longer due (another lease, or a state change since it was read).
   */
  readonly lease: (id: string, nowMs: number, untilMs: number) => Effect.Effect<boolean, SqlError>

  /**
   * Claims up to `limit` pending deliveries due at `nowMs` by leasing them until `untilMs`, in one
   * statement; resolves the claimed rows with their merchants' notify URLs. `exclude` are the rows
   * this process has in flight, `inFlight` how many each merchant has: a merchant gets at most its
   * limit (`limits`, else `perMerchant`) minus those, so every row claimed can be attempted at once
   * (none is given back).
   *
   * Due rows are taken in turns between merchants (each merchant's oldest, then each one's
   * second, ...): a merchant with a backlog of hundreds (a dead endpoint) never fills the batch
   * and hides another merchant's callback behind it.
   *
   * On PostgreSQL the candidate rows are locked `FOR UPDATE SKIP LOCKED` (Dialect.ts): replicas
   * claiming at the same moment take disjoint sets, and a row leased by one is not due for the
   * others until its lease ends (a replica that dies holding it loses nothing).
   */
  readonly claimDue: (
    nowMs: number,
    untilMs: number,
    options: ClaimOptions
  ) => Effect.Effect<ReadonlyArray<ClaimedDelivery>, SqlError>

  /**
   * Records attempts about to be sent, before they are (CONTRACT.md), in one transaction: if the
   * process dies while one is on the wire, it still shows, with {@link ATTEMPT_WITHOUT_OUTCOME} as
   * its error. Resolves each attempt's number, in the order given, for
   * {@link DeliveryStore.recordAttempts}. At most one attempt per delivery.
   */
  readonly beginAttempts: (attempts: ReadonlyArray<BegunAttempt>) => Effect.Effect<ReadonlyArray<number>, SqlError>

  /**
   * Records the outcomes of attempts and their deliveries' next states in one transaction (see
   * {@link DeliveryStore.recordAttempt}, which records one). At most one outcome per delivery.
   */
  readonly recordAttempts: (outcomes: ReadonlyArray<AttemptOutcome>) => Effect.Effect<void, SqlError>

  /**
   * Records that an attempt is about to be sent, before it is (CONTRACT.md): if the process dies
   * while it is on the wire, the attempt still shows, with {@link ATTEMPT_WITHOUT_OUTCOME} as its
   * error. Resolves with the attempt's number, which {@link DeliveryStore.recordAttempt} then completes.
   */
  readonly beginAttempt: (
    deliveryId: string,
    attempt: Pick<DeliveryAttempt, "at" | "url" | "keyVersion" | "requestHeaders" | "requestBody">
  ) => Effect.Effect<number, SqlError>

  /**
   * Records one attempt made under the lease `leasedUntilMs`, and the delivery's next state,
   * atomically; `begun` is the number {@link DeliveryStore.beginAttempt} gave it (the row is
   * completed), else a new row is added. When the row no longer carries that lease, a resend came
   * in while the attempt ran: the attempt is recorded, but the delivery stays pending and due at
   * the resend's time, so the resend is not lost.
   */
  readonly recordAttempt: (
    delivery: Delivery,
    leasedUntilMs: number,
    attempt: Omit<DeliveryAttempt, "attempt" | "requestHeaders" | "requestBody">,
    next: NextDeliveryState,
    begun?: number
  ) => Effect.Effect<void, SqlError>

  /**
   * The deliveries of one order (oldest first), or the newest `limit` (default 200) of all (newest
   * first); with their attempts, read in one more query whatever their number.
   */
  readonly deliveriesOf: (
    orderSn: string | undefined,
    limit?: number
  ) => Effect.Effect<ReadonlyArray<DeliveryWithAttempts>, SqlError>

  /** One delivery with its attempts, if it exists. */
  readonly getDelivery: (id: string) => Effect.Effect<Option.Option<DeliveryWithAttempts>, SqlError>

  /** Queues a delivery again, now, whatever its state (the developer menu's resend). Fails with {@link NotFound}. */
  readonly resend: (id: string, nowMs: number) => Effect.Effect<DeliveryWithAttempts, SqlError | NotFound>
}

/**
 * Records a delivery of the order's callback as pending and due at `draft.dueAtMs` (else `draft.nowMs`), created at
 * `createdAt` (inside the caller's transaction: an order's move and its callback are written
 * together, see the order store).
 */
export const insertDelivery = (
  sql: SqlClient.SqlClient,
  order: { readonly orderSn: string; readonly appKey: string },
  createdAt: string,
  draft: DeliveryDraft
) =>
  sql`INSERT INTO deliveries
  (id, order_sn, app_key, event_id, event_type, body, status, attempt_count, next_attempt_at_ms, created_at, created_at_ms)
  VALUES (${draft.id}, ${order.orderSn}, ${order.appKey}, ${draft.eventId}, ${draft.eventType}, ${draft.body},
    'pending', 0, ${draft.dueAtMs ?? draft.nowMs}, ${createdAt}, ${draft.nowMs})`.pipe(Effect.asVoid)

/** Makes a merchant's deliveries that wait for a later attempt due at `nowMs` (a new notify URL). */
export const makeDueNow = (sql: SqlClient.SqlClient, appKey: string, nowMs: number) =>
  sql`UPDATE deliveries SET next_attempt_at_ms = ${nowMs}
  WHERE app_key = ${appKey} AND status = 'pending' AND next_attempt_at_ms > ${nowMs}`.pipe(Effect.asVoid)

const EarliestAt = Schema.Struct({ at: Schema.NullOr(Schema.Number) })
const ClaimedRow = Schema.Struct({ ...Delivery.fields, notifyUrl: column("notify_url", Schema.NullOr(Schema.String)) })
const BegunRow = Schema.Struct({ deliveryId: column("delivery_id", Schema.String), attempt: Schema.Number })
const LeaseState = Schema.Struct({
  id: Schema.String,
  attemptCount: Delivery.fields.attemptCount,
  status: DeliveryStatus,
  nextAttemptAtMs: Delivery.fields.nextAttemptAtMs
})

/**
 * The delivery store on the `SqlClient` in context.
 *
 * @example
 * ```ts
 * const deliveries = yield* makeDeliveryStore
 * const due = yield* deliveries.dueDeliveries(Date.now())
 * ```
 */
export const makeDeliveryStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // The hot queries' decoders (a claim, its attempts begun, their outcomes) are made once, with
  // the plain loop in front of the schema (RowDecoder.ts): SqlSchema.findAll made afresh per query
  // builds the array's schema and parser again each time, a new AST the parser cache misses.
  const decodeDeliveries = rowsDecoder(Delivery)
  const deliveryRows = (execute: () => Effect.Effect<ReadonlyArray<unknown>, SqlError>) => () =>
    Effect.flatMap(execute(), decodeDeliveries)
  const attemptsOf = SqlSchema.findAll({
    Request: Schema.String,
    Result: DeliveryAttempt,
    execute: (deliveryId) => sql`SELECT * FROM delivery_attempts WHERE delivery_id = ${deliveryId} ORDER BY attempt`
  })
  const attemptsOfMany = SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: AttemptRow,
    execute: (deliveryIds) =>
      sql`SELECT * FROM delivery_attempts WHERE delivery_id IN ${sql.in(deliveryIds)} ORDER BY delivery_id, attempt`
  })
  const findDelivery = SqlSchema.findOne({
    Request: Schema.String,
    Result: Delivery,
    execute: (id) => sql`SELECT * FROM deliveries WHERE id = ${id}`
  })
  const decodeClaimed = rowsDecoder(ClaimedRow)
  const claimedRows = (execute: () => Effect.Effect<ReadonlyArray<unknown>, SqlError>) => () =>
    Effect.flatMap(execute(), decodeClaimed)
  const decodeLeaseStates = rowsDecoder(LeaseState)
  const leaseStates = (ids: ReadonlyArray<string>) =>
    Effect.flatMap(
      sql`SELECT id, attempt_count, status, next_attempt_at_ms FROM deliveries WHERE id IN ${sql.in(ids)}`,
      decodeLeaseStates
    )
  const decodeBegun = rowsDecoder(BegunRow)
  const earliest = SqlSchema.single({
    Request: Schema.Number,
    Result: EarliestAt,
    execute: (afterMs) =>
      sql`SELECT MIN(next_attempt_at_ms) AS at FROM deliveries WHERE status = 'pending' AND next_attempt_at_ms > ${afterMs}`
  })

  const withAttempts = (delivery: Delivery) =>
    Effect.map(attemptsOf(delivery.id), (attempts): DeliveryWithAttempts => ({ ...delivery, attempts }))

  const getDelivery = (id: string): Effect.Effect<Option.Option<DeliveryWithAttempts>, SqlError> =>
    Effect.gen(function* () {
      const delivery = yield* findDelivery(id)
      if (Option.isNone(delivery)) return Option.none()
      return Option.some(yield* withAttempts(delivery.value))
    }).pipe(badRowIsDefect)

  const deliveries: DeliveryStore = {
    dueDeliveries: (nowMs) =>
      deliveryRows(
        () => sql`SELECT * FROM deliveries WHERE status = 'pending' AND next_attempt_at_ms <= ${nowMs}
        ORDER BY next_attempt_at_ms LIMIT 50`
      )().pipe(badRowIsDefect),

    nextDeliveryAt: (afterMs) =>
      earliest(afterMs).pipe(
        Effect.map((row) => row.at),
        badRowIsDefect
      ),

    lease: (id, nowMs, untilMs) =>
      sql`UPDATE deliveries SET next_attempt_at_ms = ${untilMs}
      WHERE id = ${id} AND status = 'pending' AND next_attempt_at_ms <= ${nowMs} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0)
      ),

    claimDue: (nowMs, untilMs, options) => {
      const notExcluded =
        options.exclude.length === 0 ? sql`1 = 1` : sql`inner_rows.id NOT IN ${sql.in(options.exclude)}`
      // Each merchant's free slots: its limit less its attempts in flight here. Merchants with
      // none are skipped outright; the others' turns beyond their slots are not claimed.
      const free = new Map<string, number>()
      for (const [appKey, limit] of options.limits) free.set(appKey, limit)
      for (const [appKey, count] of options.inFlight)
        free.set(appKey, (free.get(appKey) ?? options.perMerchant) - Math.max(0, count))
      const busy = [...free].filter(([, slots]) => slots <= 0).map(([appKey]) => appKey)
      const partly = [...free].filter(([, slots]) => slots > 0 && slots !== options.perMerchant)
      const notBusy = busy.length === 0 ? sql`1 = 1` : sql`m.app_key NOT IN ${sql.in(busy)}`
      // The counts and limits are this process's own integers, written into the text (Dialect.ts).
      const count = (n: number) => wholeNumber(sql, Math.max(0, n))
      // Each merchant's candidates: perMerchant rows, or for the merchants with more free slots than
      // that (raised limits) as many as the most any of them has, in a second range of their own.
      const raised = partly.filter(([, slots]) => slots > options.perMerchant)
      const raisedKeys = sql.in(raised.map(([appKey]) => appKey))
      const firstRows = (limit: number, which: Statement.Fragment) =>
        sql`SELECT first_rows.id, first_rows.app_key, first_rows.next_attempt_at_ms FROM pending_merchants m
          ${joinFirstRows(
            sql,
            "deliveries",
            sql`WHERE inner_rows.app_key = m.app_key AND inner_rows.status = 'pending'
              AND inner_rows.next_attempt_at_ms <= ${nowMs} AND ${notExcluded}
              ORDER BY inner_rows.next_attempt_at_ms LIMIT ${count(limit)}`
          )}
          WHERE m.app_key IS NOT NULL AND ${notBusy} AND ${which}`
      const candidates =
        raised.length === 0
          ? firstRows(options.perMerchant, sql`1 = 1`)
          : sql`${firstRows(options.perMerchant, sql`m.app_key NOT IN ${raisedKeys}`)}
            UNION ALL
            ${firstRows(Math.max(...raised.map(([, slots]) => slots)), sql`m.app_key IN ${raisedKeys}`)}`
      const slots =
        partly.length === 0
          ? count(options.perMerchant)
          : sql`CASE app_key ${sql.join(" ", false)(partly.map(([appKey, n]) => sql`WHEN ${appKey} THEN ${count(n)}`))}
            ELSE ${count(options.perMerchant)} END`
      // The work is bounded by the merchants with pending deliveries and the batch, never by the
      // number of rows due: `pending_merchants` walks the distinct merchants along the index (one
      // probe each), `candidates` takes each one's earliest due rows, perMerchant or the raised
      // merchants' most (one index range each), and only those are ranked. A backlog of 10,000 due rows of one
      // merchant costs what a backlog of its limit does. On PostgreSQL only the candidates are
      // locked (Dialect.ts).
      return claimedRows(
        () => sql`WITH RECURSIVE pending_merchants(app_key) AS (
          SELECT (SELECT app_key FROM deliveries WHERE status = 'pending' ORDER BY app_key LIMIT 1)
          UNION ALL
          SELECT (SELECT d.app_key FROM deliveries d WHERE d.status = 'pending' AND d.app_key > m.app_key
            ORDER BY d.app_key LIMIT 1)
          FROM pending_merchants m WHERE m.app_key IS NOT NULL
        ), candidates AS (
          ${candidates}
        ), turns AS (
          SELECT id, next_attempt_at_ms, ${slots} AS slots,
            ROW_NUMBER() OVER (PARTITION BY app_key ORDER BY next_attempt_at_ms, id) AS turn
          FROM candidates
        )
        UPDATE deliveries SET next_attempt_at_ms = ${untilMs}
        WHERE id IN (SELECT id FROM turns WHERE turn <= slots ORDER BY turn, next_attempt_at_ms, id LIMIT ${count(options.limit)})
        RETURNING *, (SELECT notify_url FROM merchants WHERE merchants.app_key = deliveries.app_key) AS notify_url`
      )().pipe(badRowIsDefect)
    },

    beginAttempts: (attempts) =>
      attempts.length === 0
        ? Effect.succeed([])
        : sql
            .withTransaction(
              Effect.gen(function* () {
                // After attempts cut short by a crash, the next number follows the rows, not the count.
                const rows = yield* sql`INSERT INTO delivery_attempts
                  (delivery_id, attempt, at, url, http_status, error, key_version, duration_ms, request_headers, request_body)
                VALUES ${sql.csv(
                  attempts.map(
                    (attempt) => sql`(${attempt.deliveryId},
                      (SELECT COALESCE(MAX(attempt), 0) + 1 FROM delivery_attempts WHERE delivery_id = ${attempt.deliveryId}),
                      ${attempt.at}, ${attempt.url}, NULL, ${ATTEMPT_WITHOUT_OUTCOME}, ${attempt.keyVersion}, 0,
                      ${attempt.requestHeaders === null ? null : JSON.stringify(attempt.requestHeaders)}, ${attempt.requestBody})`
                  )
                )}
                RETURNING delivery_id, attempt`
                const ids = attempts.map((attempt) => attempt.deliveryId)
                yield* sql`UPDATE deliveries
                  SET attempt_count = (SELECT MAX(attempt) FROM delivery_attempts WHERE delivery_id = deliveries.id)
                  WHERE id IN ${sql.in(ids)}`
                const numbers = new Map((yield* decodeBegun(rows)).map((row) => [row.deliveryId, row.attempt]))
                return ids.map((id) => numbers.get(id) ?? 0)
              })
            )
            .pipe(badRowIsDefect),

    recordAttempts: (outcomes) =>
      outcomes.length === 0
        ? Effect.void
        : sql
            .withTransaction(
              Effect.gen(function* () {
                const states = new Map(
                  (yield* leaseStates(outcomes.map((outcome) => outcome.delivery.id))).map((row) => [row.id, row])
                )
                const rows = outcomes.flatMap((outcome) => {
                  const row = states.get(outcome.delivery.id)
                  if (row === undefined) return []
                  // A resend came in while the attempt ran (the row no longer carries its lease): the
                  // attempt is recorded, the delivery stays due at the resend's time.
                  const resent = row.status !== "pending" || row.nextAttemptAtMs !== outcome.leasedUntilMs
                  const deliveredAt = outcome.next.status === "delivered" ? outcome.attempt.at : null
                  const nextAt = outcome.next.status === "pending" ? outcome.next.nextAttemptAtMs : null
                  return [{ outcome, number: outcome.begun ?? row.attemptCount + 1, resent, deliveredAt, nextAt }]
                })
                if (rows.length === 0) return
                // A begun attempt's row is completed; one never begun (nothing sent) is added.
                yield* sql`INSERT INTO delivery_attempts
                  (delivery_id, attempt, at, url, http_status, error, key_version, duration_ms)
                VALUES ${sql.csv(
                  rows.map(
                    ({
                      outcome: { attempt, delivery },
                      number
                    }) => sql`(${delivery.id}, ${number}, ${attempt.at}, ${attempt.url},
                      ${attempt.httpStatus}, ${attempt.error}, ${attempt.keyVersion}, ${attempt.durationMs})`
                  )
                )}
                ON CONFLICT (delivery_id, attempt) DO UPDATE SET at = excluded.at, url = excluded.url,
                  http_status = excluded.http_status, error = excluded.error, key_version = excluded.key_version,
                  duration_ms = excluded.duration_ms`
                // One statement for every row: the outcomes are a VALUES list joined by id, a tuple
                // per row (a CASE per column over every id cost each row a scan of the ids, and five
                // fragments per row to build). A resent row (1 in column2) keeps its status and due
                // time. Numbers are cast, since PostgreSQL types the parameters of VALUES as text.
                const ms = epochMsType(sql)
                const resent = sql`CAST(v.column2 AS INTEGER) = 1`
                yield* sql`UPDATE deliveries SET
                  status = CASE WHEN ${resent} THEN deliveries.status ELSE v.column3 END,
                  attempt_count = CAST(v.column4 AS INTEGER),
                  next_attempt_at_ms = CASE WHEN ${resent} THEN deliveries.next_attempt_at_ms
                    ELSE CAST(v.column5 AS ${ms}) END,
                  last_error = v.column6,
                  delivered_at = CASE WHEN ${resent} THEN COALESCE(v.column7, deliveries.delivered_at)
                    ELSE v.column7 END
                FROM (VALUES ${sql.csv(
                  rows.map(
                    (row) => sql`(${row.outcome.delivery.id}, ${row.resent ? 1 : 0}, ${row.outcome.next.status},
                      ${row.number}, ${row.nextAt}, ${row.outcome.attempt.error}, ${row.deliveredAt})`
                  )
                )}) AS v
                WHERE deliveries.id = v.column1`
              })
            )
            .pipe(badRowIsDefect),

    beginAttempt: (deliveryId, attempt) =>
      Effect.map(deliveries.beginAttempts([{ deliveryId, ...attempt }]), (numbers) => numbers[0]!),

    recordAttempt: (delivery, leasedUntilMs, attempt, next, begun) =>
      deliveries.recordAttempts([{ delivery, leasedUntilMs, attempt, next, begun }]),

    deliveriesOf: (orderSn, limit = 200) =>
      deliveryRows(() =>
        orderSn === undefined
          ? sql`SELECT * FROM deliveries ORDER BY created_at_ms DESC, id LIMIT ${wholeNumber(sql, limit)}`
          : sql`SELECT * FROM deliveries WHERE order_sn = ${orderSn} ORDER BY created_at_ms, id`
      )().pipe(
        Effect.flatMap((rows) =>
          rows.length === 0
            ? Effect.succeed([])
            : Effect.map(attemptsOfMany(rows.map((row) => row.id)), (attempts) => {
                const byDelivery = new Map<string, Array<DeliveryAttempt>>()
                for (const { deliveryId, ...attempt } of attempts) {
                  const list = byDelivery.get(deliveryId) ?? []
                  list.push(attempt)
                  byDelivery.set(deliveryId, list)
                }
                return rows.map((row): DeliveryWithAttempts => ({ ...row, attempts: byDelivery.get(row.id) ?? [] }))
              })
        ),
        badRowIsDefect
      ),

    getDelivery,

    resend: (id, nowMs) =>
      Effect.gen(function* () {
        const rows = yield* sql`UPDATE deliveries SET status = 'pending', next_attempt_at_ms = ${nowMs}
        WHERE id = ${id} RETURNING id`
        if (rows.length === 0) return yield* new NotFound({ what: `delivery ${id}` })
        return (yield* getDelivery(id)).pipe(Option.getOrThrow)
      })
  }
  return deliveries
})
