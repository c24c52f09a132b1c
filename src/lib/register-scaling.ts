/** Engineering values from raw register values (docs/api.md section 1: value = raw_value x scale_factor). */

export function scaleValue(raw: number | null, scaleFactor: number | null): number | null {
  return raw === null ? null : scalerFor(scaleFactor)(raw);
}

/**
 * A function applying one scale factor, chosen once per register. Scale factors
 * are nearly always powers of ten: dividing by the exact inverse gives the
 * decimal a person expects (3 x 0.1 reads 0.3, not 0.30000000000000004) without
 * a costly rounding step per value.
 */
export function scalerFor(scaleFactor: number | null): (raw: number) => number {
  if (scaleFactor === null || scaleFactor === 1) return (raw) => raw;
  if (Number.isInteger(scaleFactor)) return (raw) => raw * scaleFactor;
  const inverse = Math.round(1 / scaleFactor);
  if (inverse > 1 && 1 / inverse === scaleFactor && Number.isInteger(Math.log10(inverse)))
    return (raw) => raw / inverse;
  // Any other factor: rounded to 15 significant digits, the precision a double can promise.
  return (raw) => Number((raw * scaleFactor).toPrecision(15));
}
