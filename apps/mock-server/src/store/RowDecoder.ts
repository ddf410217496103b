// How the rows of a hot query become values: by the record's own schema (Records.ts), with a plain
// loop in front of it. Schema's parser allocates an Either, an Option and an issue list per field,
// and a renamed column (`column`) adds a transformation per field, for every row of every claim,
// begun attempt and recorded outcome: the garbage and time that costs are measured in
// bench/RESULTS.md. The loop is read off the schema once, so the schema stays the one definition
// of a row; it covers the fields a row is made of here (strings, numbers, literals, their unions
// with null, renamed or not), and any row it does not accept, or any schema it cannot read, goes
// through the schema itself, which gives the same value or the ParseError a row the store did not
// write deserves.
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

/** One field: the column it is read from, the key it gets, and what its value must be. */
interface Field {
  readonly column: string
  readonly key: string
  readonly accepts: (value: unknown) => boolean
}

/** What a value of a plain field's type must be, or undefined for a type the loop does not take. */
const acceptsOf = (ast: AST.AST): ((value: unknown) => boolean) | undefined => {
  switch (ast._tag) {
    case "StringKeyword":
      return (value) => typeof value === "string"
    case "NumberKeyword":
      return (value) => typeof value === "number"
    case "BooleanKeyword":
      return (value) => typeof value === "boolean"
    case "Literal": {
      const literal = ast.literal
      return (value) => value === literal
    }
    case "Union": {
      const members = ast.types.map(acceptsOf)
      if (members.some((member) => member === undefined)) return undefined
      const all = members as ReadonlyArray<(value: unknown) => boolean>
      // A plain loop: `some` with an arrow would make a closure per value.
      return (value) => {
        for (const accepts of all) if (accepts(value)) return true
        return false
      }
    }
    default:
      return undefined
  }
}

/** A plain property (required, string-named, of a type the loop takes) as a field, else undefined. */
const fieldOf = (property: AST.PropertySignature, key: string, column: string): Field | undefined => {
  if (property.isOptional || typeof property.name !== "string") return undefined
  const accepts = acceptsOf(property.type)
  return accepts === undefined ? undefined : { column, key, accepts }
}

/**
 * The fields of a struct the loop can decode exactly as the schema does: a type literal of plain
 * properties, or the transformation `column` makes (renamed keys, values passed through as they
 * are). Undefined for anything else (a parsed JSON column, a default, an index signature).
 */
const fieldsOf = (ast: AST.AST): ReadonlyArray<Field> | undefined => {
  if (ast._tag === "TypeLiteral") {
    if (ast.indexSignatures.length > 0) return undefined
    const fields = ast.propertySignatures.map((property) =>
      typeof property.name === "string" ? fieldOf(property, property.name, property.name) : undefined
    )
    return fields.every((field) => field !== undefined) ? (fields as ReadonlyArray<Field>) : undefined
  }
  if (
    ast._tag !== "Transformation" ||
    ast.from._tag !== "TypeLiteral" ||
    ast.to._tag !== "TypeLiteral" ||
    ast.transformation._tag !== "TypeLiteralTransformation" ||
    ast.from.indexSignatures.length > 0 ||
    ast.to.indexSignatures.length > 0
  ) {
    return undefined
  }
  const columnOf = new Map<PropertyKey, PropertyKey>()
  for (const renamed of ast.transformation.propertySignatureTransformations) {
    // A rename only: the value itself is passed through both ways.
    if (renamed.decode !== identity || renamed.encode !== identity) return undefined
    columnOf.set(renamed.to, renamed.from)
  }
  const from = new Map(ast.from.propertySignatures.map((property) => [property.name, property]))
  const fields: Array<Field> = []
  for (const property of ast.to.propertySignatures) {
    const column = columnOf.get(property.name) ?? property.name
    const source = from.get(column)
    if (source === undefined || typeof column !== "string" || typeof property.name !== "string") return undefined
    // The decoded type is the column's own: no transformation of the value hides in the field.
    if (property.isOptional !== source.isOptional || AST.typeAST(source.type) !== property.type) return undefined
    const field = fieldOf(source, property.name, column)
    if (field === undefined) return undefined
    fields.push(field)
  }
  return fields.length === from.size ? fields : undefined
}

/** The row decoded by the fields, or undefined when it is not what they accept. */
const decodeRow = (fields: ReadonlyArray<Field>, row: unknown): Record<string, unknown> | undefined => {
  if (typeof row !== "object" || row === null || Array.isArray(row)) return undefined
  const out: Record<string, unknown> = {}
  for (const field of fields) {
    const value = (row as Record<string, unknown>)[field.column]
    if (!field.accepts(value)) return undefined
    out[field.key] = value
  }
  return out
}

/** A decoder of a query's rows, and whether it has the plain loop in front of the schema. */
export interface RowsDecoder<A> {
  (rows: unknown): Effect.Effect<ReadonlyArray<A>, ParseResult.ParseError>
  /** False when the schema is one the loop cannot read: every row then goes through the schema. */
  readonly fast: boolean
}

/**
 * Decodes a query's rows by a row schema, with the plain loop first (see the module's comment):
 * the same values as `Schema.decodeUnknown(Schema.Array(schema))`, and its ParseError for rows
 * the store did not write.
 *
 * @example
 * ```ts
 * const decodeClaimed = rowsDecoder(ClaimedRow)
 * const claimed = yield* Effect.flatMap(sql`SELECT ...`, decodeClaimed)
 * ```
 */
export const rowsDecoder = <A, I>(schema: Schema.Schema<A, I, never>): RowsDecoder<A> => {
  const bySchema = Schema.decodeUnknown(Schema.Array(schema))
  const fields = fieldsOf(schema.ast)
  if (fields === undefined) return Object.assign((rows: unknown) => bySchema(rows), { fast: false })
  return Object.assign(
    (rows: unknown): Effect.Effect<ReadonlyArray<A>, ParseResult.ParseError> => {
      if (!Array.isArray(rows)) return bySchema(rows)
      const out: Array<A> = new Array(rows.length)
      for (let i = 0; i < rows.length; i++) {
        const value = decodeRow(fields, rows[i])
        if (value === undefined) return bySchema(rows)
        out[i] = value as A
      }
      return Effect.succeed(out)
    },
    { fast: true }
  )
}

/**
 * Decodes one row by a row schema, at once: the plain loop first, then the schema, which throws
 * its ParseError for a row the store did not write.
 *
 * @example
 * ```ts
 * const decodeOrder = rowDecoderSync(StoredOrder)
 * const order = decodeOrder(found[0])
 * ```
 */
export const rowDecoderSync = <A, I>(schema: Schema.Schema<A, I, never>): ((row: unknown) => A) => {
  const bySchema = Schema.decodeUnknownSync(schema)
  const fields = fieldsOf(schema.ast)
  if (fields === undefined) return bySchema
  return (row) => (decodeRow(fields, row) as A | undefined) ?? bySchema(row)
}
