/** Building blocks of the /edge messages' schemas (docs/fleet.md, "The edge protocol"). */
import { type TLiteral, type TSchema, type TUnion, Type } from "@sinclair/typebox";

export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** One of `values`: its static type is their union. */
export const oneOf = <const T extends string>(values: readonly T[]): TUnion<TLiteral<T>[]> =>
  Type.Union(values.map((value) => Type.Literal(value)));

/** A time on the edge wire: Unix ms. */
export const unixMs = Type.Integer({ minimum: 0 });

/** A count in a receipt. */
export const count = Type.Integer({ minimum: 0 });
